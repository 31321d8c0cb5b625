// Environment every e2e file starts from; DATABASE_URL and BULL_PREFIX come from the global setup.
process.env.NODE_ENV = 'test';
process.env.REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379/9';
process.env.ENCRYPTION_KEY =
  process.env.ENCRYPTION_KEY || 'dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy1vayE=';
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'warn';
process.env.RUN_MIGRATIONS = 'true';
// A relay started by a test listens for inbound mail on a free port, never on the default 2526.
process.env.INBOUND_SMTP_PORT = process.env.INBOUND_SMTP_PORT || '0';
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
process.env.DATA_DIR =
  process.env.DATA_DIR || require('node:path').join(require('node:os').tmpdir(), 'mp-test-data');
