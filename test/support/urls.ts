// Where an e2e file's stores are: its database on the run's server, its worker's Redis database.

/** `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * TEST_REDIS_URL's database (default 9) for jest's first worker, the next ones for the others, so
 * files running at the same time never share the per-IP counters (keyed by client address, and
 * every file's client is 127.0.0.1).
 */
export function redisUrlOfWorker(worker: number): string {
  const url = new URL(process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379/9');
  const db = Number(url.pathname.slice(1) || 0);
  url.pathname = `/${(db + worker - 1) % 16}`;
  return url.toString();
}
