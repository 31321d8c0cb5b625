// Open and click tracking (§8): personalises a recipient's HTML with signed links, and records
// the events those links report into the engagement store.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import type { OrgId } from '../../common/org-id';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { NotFoundError } from '../../errors/domain-errors';
import { EngagementStore } from '../engagement/engagement.store';
import { MessageService } from '../message.service';
import { renderTrackedHtml, scanHtmlForTracking, TrackableHtml } from './html-rewriter';
import { SHORT_LINK_ID, ShortLinks } from './short-links';
import { TrackingClaims, TrackingKind, TrackingTokens } from './tracking-token';

export interface TrackingTarget {
  organizationId: OrgId;
  messageId: string;
  recipientIndex: number;
  opens: boolean;
  clicks: boolean;
}

export interface TrackingRequest {
  userAgent?: string;
  remoteIp?: string;
}

@Injectable()
export class TrackingService {
  private readonly logger = new Logger(TrackingService.name);

  constructor(
    private readonly tokens: TrackingTokens,
    private readonly engagement: EngagementStore,
    private readonly messages: MessageService,
    private readonly shortLinks: ShortLinks,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Where a message's tracking goes, found once for all its recipients; null when the HTML is
   * sent untracked (over the caps of §16: no pixel, no rewritten link), which is logged.
   */
  async prepare(
    html: string,
    m: { organizationId: OrgId; messageId: string; clicks: boolean },
  ): Promise<TrackableHtml | null> {
    const scan = await scanHtmlForTracking(html, { clicks: m.clicks });
    if (scan.tracked) return scan.html;
    this.logger.warn({
      msg: 'tracked HTML over the tracking limits: sent untracked',
      organizationId: m.organizationId,
      messageId: m.messageId,
      reason: scan.reason,
      htmlBytes: scan.htmlBytes,
      links: scan.links,
    });
    return null;
  }

  /** The HTML one recipient gets: links through the click redirect, plus the open pixel. */
  personalise(html: TrackableHtml, t: TrackingTarget): Promise<string> {
    const base = {
      organizationId: t.organizationId,
      messageId: t.messageId,
      recipientIndex: t.recipientIndex,
    };
    return renderTrackedHtml(html, {
      pixel: t.opens
        ? `${this.config.publicBaseUrl}/t/o/${this.tokens.sign({ ...base, kind: 'open' })}.gif`
        : undefined,
      link: t.clicks
        ? (url) =>
            `${this.config.publicBaseUrl}/t/c/${this.tokens.sign({ ...base, kind: 'click', url })}`
        : undefined,
    });
  }

  /** Records an open; NotFoundError for a token we did not sign. */
  async open(token: string, req: TrackingRequest): Promise<void> {
    const claims = this.verify(token, 'open');
    await this.record(claims, 'opened', req);
  }

  /**
   * Records a click and returns the URL to redirect to: a signed token's, or a short link's (an
   * SMS's, §17). NotFoundError when it is neither.
   */
  async click(token: string, req: TrackingRequest): Promise<string> {
    if (SHORT_LINK_ID.test(token)) {
      const link = await this.shortLinks.resolve(token);
      if (!link) throw new NotFoundError('Tracking link');
      await this.record({ kind: 'click', ...link }, 'clicked', req);
      return link.url;
    }
    const claims = this.verify(token, 'click');
    await this.record(claims, 'clicked', req);
    return claims.url!;
  }

  private verify(token: string, kind: TrackingKind): TrackingClaims {
    const claims = this.tokens.verify(token, kind);
    if (!claims) throw new NotFoundError('Tracking link');
    return claims;
  }

  /**
   * Writes the engagement event and stores its webhook deliveries (email.opened / email.clicked),
   * side by side, and returns once both are done: a hit is answered only when its webhook event is
   * durable. An outage of either store loses that store's event (logged), never the pixel or the
   * redirect.
   */
  private async record(claims: TrackingClaims, type: 'opened' | 'clicked', req: TrackingRequest) {
    const event = {
      type,
      url: claims.url ?? null,
      userAgent: req.userAgent?.slice(0, 512) ?? null,
      remoteIp: req.remoteIp ?? null,
      occurredAt: this.clock.now(),
    };
    const lost = (what: string) => (err: Error) =>
      this.logger.warn({ msg: what, type, messageId: claims.messageId, err: err.message });
    const { organizationId, messageId, recipientIndex } = claims;
    await Promise.all([
      this.engagement
        .record(organizationId, { messageId, recipientIndex, ...event })
        .catch(lost('engagement event not recorded')),
      this.messages
        .engaged(organizationId, messageId, recipientIndex, event)
        .catch(lost('engagement webhook event not stored')),
    ]);
  }
}
