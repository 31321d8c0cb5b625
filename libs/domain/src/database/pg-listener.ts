// A dedicated PostgreSQL connection that LISTENs on one channel and reconnects when lost.
import { Logger } from '@nestjs/common';
import pg from 'pg';

const RECONNECT_MS = 1000;

export interface PgListenerHandlers {
  notified(payload: string | undefined): void;
  /** LISTEN is in place: from now on no notification is missed. */
  up?(): void;
  /** The connection is gone: notifications may be missed until `up` again. */
  down?(): void;
}

/**
 * Reconnects a second after the connection is lost. Its users (the organization cache, the
 * webhook dispatcher's wake-ups) are told when it is up and when it went down, since a
 * notification sent meanwhile is lost.
 */
export class PgListener {
  private client?: pg.Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly connectionString: string | undefined,
    private readonly channel: string,
    private readonly handlers: PgListenerHandlers,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (n) => {
      if (n.channel === this.channel) this.handlers.notified(n.payload);
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.handlers.down?.();
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ msg: 'LISTEN connection lost', channel: this.channel, err: err?.message });
      this.retry = setTimeout(() => void this.connect(), RECONNECT_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
      if (this.client === client) this.handlers.up?.();
    } catch (err) {
      lost(err as Error);
    }
  }
}
