#!/usr/bin/env node
// npm run migrate: applies pending migrations to DATABASE_URL (or the embedded database).
process.argv.splice(2, 0, 'migrate');
require('./admin.js');
