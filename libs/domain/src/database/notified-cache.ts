// A per-key cache of values read from PostgreSQL, kept correct by NOTIFY: a committed change
// notifies the key on a channel, and the entry is dropped. The organization cache and the
// verified sending domains both read through one.
import { Logger } from '@nestjs/common';
import { PgListener } from './pg-listener';

export interface NotifiedCacheOptions<V, K extends string = string> {
  /** The main database's URL; the cache holds one LISTEN connection of its own. */
  connectionString: string | undefined;
  /** The channel whose payload is the key whose value changed. */
  channel: string;
  /** Reads the current value of a key. */
  load: (key: K) => Promise<V>;
  logger: Logger;
  /** Entries kept at most; the oldest go first (Map order). */
  maxEntries: number;
  /** A safety net only: an entry is read again after this long even without a notification. */
  maxAgeMs: number;
}

/**
 * Values are cached only while the LISTEN connection is up: a notification sent while it is down
 * is lost, so then every read goes to the database. A read that raced with a notification (the
 * generation moved while it ran) is answered but not kept.
 */
export class NotifiedCache<V, K extends string = string> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private generation = 0;
  private listening = false;
  private readonly listener: PgListener;

  constructor(private readonly options: NotifiedCacheOptions<V, K>) {
    this.listener = new PgListener(
      options.connectionString,
      options.channel,
      {
        notified: (key) => key && this.forget(key),
        up: () => (this.listening = true),
        down: () => this.forgetAll(),
      },
      options.logger,
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener.stop();
    this.forgetAll();
  }

  /** The value of `key`, as committed at most a notification ago. */
  async get(key: K): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && this.listening && Date.now() - hit.at < this.options.maxAgeMs) return hit.value;
    const generation = this.generation;
    const value = await this.options.load(key);
    if (this.listening && generation === this.generation) {
      if (this.entries.size >= this.options.maxEntries) {
        this.entries.delete(this.entries.keys().next().value!);
      }
      this.entries.set(key, { value, at: Date.now() });
    }
    return value;
  }

  /** Drops the entry of `key`: its next read goes to the database. */
  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  private forgetAll(): void {
    this.listening = false;
    this.generation++;
    this.entries.clear();
  }
}
