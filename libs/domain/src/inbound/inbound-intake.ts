// The inbound port's intake (§14, §16, §1): which recipients it takes mail for (a token we signed,
// or one of the role boxes, at a return host of ours), and the commit of what it received, after
// which a worker is asked to process it now. Durable first: the row is what counts; a lost job
// only waits for the worker's next poll.
import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { Clock } from '../common/clock';
import { JOBS, ProcessInboundJob, QUEUES } from '../queues/jobs';
import { VerpTokens } from '../sending-domains/verp';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import { InboundKind, parseInboundAddress } from './inbound-address';
import { InboundMessageRepository, NewInboundMessage } from './inbound-message.repository';
import { ReturnPath } from './return-path';

/** How long queueing may take before the intake answers anyway (the poll will pick it up). */
const ENQUEUE_TIMEOUT_MS = 2000;

@Injectable()
export class InboundIntake {
  private readonly logger = new Logger(InboundIntake.name);

  constructor(
    private readonly repository: InboundMessageRepository,
    @InjectQueue(QUEUES.inbound) private readonly queue: Queue,
    private readonly clock: Clock,
    private readonly returnPath: ReturnPath,
    private readonly verp: VerpTokens,
    private readonly unsubscribeTokens: UnsubscribeTokens,
  ) {}

  /**
   * What mail to `address` is, or null when the port takes no mail for it: a `bounces+` or
   * `unsubscribe+` token must be one we signed (a forged one is refused at RCPT, before any byte of
   * the message is read), and the host must be one of our return hosts.
   */
  async recipientKind(address: string): Promise<InboundKind | null> {
    const parsed = parseInboundAddress(address);
    if (!parsed) return null;
    if (parsed.kind === 'bounce' && !this.verp.verify(parsed.token!)) return null;
    if (parsed.kind === 'unsubscribe' && !this.unsubscribeTokens.verify(parsed.token!)) return null;
    return (await this.returnPath.isReturnHost(parsed.host)) ? parsed.kind : null;
  }

  /**
   * Resolves once the message is committed (its id), or null when the same bytes were received
   * before; throws when it could not be committed.
   */
  async accept(message: NewInboundMessage): Promise<string | null> {
    const id = await this.repository.store(message, this.clock.now());
    if (id) await this.enqueue(id);
    return id;
  }

  private async enqueue(inboundId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.queue.add(JOBS.processInbound.name, { inboundId } satisfies ProcessInboundJob, {
          jobId: inboundId,
          removeOnComplete: true,
          removeOnFail: 1000,
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('enqueue timed out')), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      this.logger.warn({
        msg: 'inbound job not queued; the worker poll will process the message',
        inboundId,
        err: (err as Error).message,
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
