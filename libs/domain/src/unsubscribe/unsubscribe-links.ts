// Puts the unsubscribe headers and link (§14) into a message about to be sent: a campaign's, or an
// API send that asked for them (`listUnsubscribe`, with a contact). The delivery worker calls it
// before tracking and signing, so the link is in the HTML the tracker reads and the headers are
// among those the DKIM signature covers.
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { MessageContent } from '../messaging/outgoing-message';
import {
  htmlWithLink,
  listUnsubscribeHeaders,
  textWithLink,
  UnsubscribeTargets,
} from './list-unsubscribe';
import { UnsubscribeTokens } from './unsubscribe-token';

/** What of a message decides its unsubscribe: which job, for which contact, with what content. */
export interface UnsubscribableMessage {
  jobId: string;
  contactId: string | null;
  content: MessageContent;
  /** A relayed message's bytes: sent as submitted, never changed. */
  raw?: Buffer;
}

@Injectable()
export class UnsubscribeLinks {
  constructor(
    private readonly tokens: UnsubscribeTokens,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The one-click URL and mailto address of a message, by its job id. */
  targets(jobId: string): UnsubscribeTargets | null {
    const token = this.tokens.sign(jobId);
    if (!token) return null;
    return {
      url: `${this.config.publicBaseUrl}/u/${token}`,
      mailto: `unsubscribe+${token}@${this.config.sendingDomains.bounceDomain}`,
    };
  }

  /** The message as it goes out: with the headers and the visible link when it carries them. */
  apply<M extends UnsubscribableMessage>(message: M): M {
    const c = message.content;
    if (!c.listUnsubscribe || !message.contactId || message.raw) return message;
    const targets = this.targets(message.jobId);
    if (!targets) return message;
    const content: MessageContent = {
      ...c,
      html: c.html === undefined ? undefined : htmlWithLink(c.html, targets.url),
      text: c.text === undefined ? undefined : textWithLink(c.text, targets.url),
      headers: { ...c.headers, ...listUnsubscribeHeaders(targets) },
    };
    return { ...message, content };
  }
}
