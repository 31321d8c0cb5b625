// Whether an error is a store's outage (PostgreSQL, Redis, the object store) or a fault.
/**
 * Database, Redis and object store errors that mean a store is unreachable rather than a bug: the
 * api answers them 503 (not 500), a worker hands its work back to be run again. Redis: ioredis
 * gives up on a command after `maxRetriesPerRequest` reconnection attempts
 * (MaxRetriesPerRequestError) while the server is down, e.g. in the per-key limit of every
 * authenticated route; the client reconnects by itself once the server is back. A Redis Cluster
 * with a master down answers CLUSTERDOWN, or ioredis gives up on its redirections; a node that
 * restarted has lost its scripts (NOSCRIPT) until the client loads them again. An S3 store
 * unreachable fails with the socket's code, or answers 5xx.
 */
export function isStoreOutage(err: unknown): boolean {
  const e = err as {
    code?: string;
    message?: string;
    name?: string;
    $metadata?: { httpStatusCode?: number };
  } | null;
  if (!e) return false;
  // The object store (S3) answering with a server error: SlowDown, InternalError, unavailable.
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (e.name === 'MaxRetriesPerRequestError' || e.name === 'ClusterAllFailedError') return true;
  // TypeORM releases a transaction's connection as soon as the pg client reports it dead (the
  // server terminating sessions when it shuts down); the transaction's next statement then
  // fails with this error instead of a connection error.
  if (e.name === 'QueryRunnerAlreadyReleasedError') return true;
  if (
    e.code &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EAI_AGAIN',
      // A report on a read replica cancelled by its replication (a conflict with recovery).
      '40001',
      '57P01',
      '57P03',
      '08006',
      '08001',
      '08003',
    ].includes(e.code)
  ) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Connection is closed|the database system is|Reached the max retries per request limit|Stream isn't writeable|CLUSTERDOWN|Too many Cluster redirections|None of startup nodes is available|^NOSCRIPT/i.test(
    e.message ?? '',
  );
}
