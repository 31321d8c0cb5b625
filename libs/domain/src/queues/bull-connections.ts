// Bull's Redis connections of one process, as Bull's docs advise for many queues: one command
// client and one event subscriber shared by every queue, and a blocking connection for each queue
// that takes jobs (it waits on that queue alone).
import { closeRedis, openRedis, RedisClient } from '../redis/redis-client';

export type BullConnectionType = 'client' | 'subscriber' | 'bclient';

export class BullConnections {
  private client?: RedisClient;
  private subscriber?: RedisClient;
  private readonly blocking = new Set<RedisClient>();

  constructor(private readonly redisUrl: string) {}

  /** Bull's `createClient`. */
  readonly create = (type: BullConnectionType): RedisClient => {
    switch (type) {
      case 'client':
        return (this.client ??= this.open('bull-client'));
      case 'subscriber':
        return (this.subscriber ??= this.open('bull-subscriber'));
      case 'bclient': {
        const c = this.open('bull-blocking');
        this.blocking.add(c);
        return c;
      }
    }
  };

  /** Closes them all; Bull closes none of the connections it is given. Queues close first. */
  async close(): Promise<void> {
    const shared = [this.client, this.subscriber].filter((c): c is RedisClient => !!c);
    this.client = this.subscriber = undefined;
    const blocking = [...this.blocking];
    this.blocking.clear();
    // A blocking connection may be inside BRPOPLPUSH: QUIT would wait for it.
    for (const c of blocking) c.disconnect();
    await Promise.all(shared.map(closeRedis));
  }

  private open(role: 'bull-client' | 'bull-subscriber' | 'bull-blocking'): RedisClient {
    const c = openRedis(this.redisUrl, role);
    // Every queue adds its own error listener to the shared connections.
    c.setMaxListeners(0);
    return c;
  }
}
