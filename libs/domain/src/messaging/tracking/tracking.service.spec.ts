// Open and click tracking with fakes of the engagement store, the message service and the short
// links: the HTML each recipient gets, what a hit records, where a click leads, and the hits that
// are refused (a token not ours, changed, or of the other kind) or survive a store's outage.
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../../../test/support/clock';
import { asOrgId, type OrgId } from '../../common/org-id';
import type { AppConfig } from '../../config/app-config';
import { NotFoundError } from '../../errors/domain-errors';
import type { EmailEngagement } from '../email-events';
import type { EngagementEventInput, EngagementStore } from '../engagement/engagement.store';
import type { MessageService } from '../message.service';
import { MAX_TRACKED_LINKS } from './html-rewriter';
import type { ShortLinks, ShortLinkTarget } from './short-links';
import { TrackingClaims, TrackingTokens } from './tracking-token';
import { TrackingService } from './tracking.service';

const ORG = asOrgId('0b3c8d52-46a7-4c8e-9a3d-6b2f3a1d9e01');
const MSG = 'f2a1d0c4-5b6e-4f7a-8b9c-0d1e2f3a4b5c';
const NOW = new Date('2026-03-02T09:30:00.000Z');
const SHORT_ID = 'Ab3dEf6hIj9k';

/** The engagement store and the message service as tracking uses them, each able to fail. */
class Stores {
  /** Each event with the organization it was recorded for. */
  readonly events: (EngagementEventInput & { organizationId: OrgId })[] = [];
  readonly engaged: [string, string, number, EmailEngagement][] = [];
  storeDown: Error | null = null;
  messagesDown: Error | null = null;

  readonly engagement = {
    record: async (organizationId: OrgId, e: EngagementEventInput) => {
      if (this.storeDown) throw this.storeDown;
      this.events.push({ organizationId, ...e });
    },
  };
  readonly messages = {
    engaged: async (org: string, message: string, idx: number, e: EmailEngagement) => {
      if (this.messagesDown) throw this.messagesDown;
      this.engaged.push([org, message, idx, e]);
    },
  };
}

/** Short links by id: the targets an SMS's links were stored with. */
class FakeShortLinks {
  readonly links = new Map<string, ShortLinkTarget>();
  readonly asked: string[] = [];
  async resolve(id: string): Promise<ShortLinkTarget | null> {
    this.asked.push(id);
    return this.links.get(id) ?? null;
  }
}

describe(TrackingService.name, () => {
  let tokens: TrackingTokens;
  let stores: Stores;
  let shortLinks: FakeShortLinks;
  let service: TrackingService;
  let warn: jest.SpyInstance;
  const target = { organizationId: ORG, messageId: MSG, opens: true, clicks: true };
  const claims = (over: Partial<TrackingClaims> = {}): TrackingClaims => ({
    kind: 'click',
    organizationId: ORG,
    messageId: MSG,
    recipientIndex: 3,
    url: 'https://shop.example.test/p/1?a=b',
    ...over,
  });

  beforeEach(() => {
    tokens = new TrackingTokens([randomBytes(32)]);
    stores = new Stores();
    shortLinks = new FakeShortLinks();
    service = new TrackingService(
      tokens,
      stores.engagement as unknown as EngagementStore,
      stores.messages as unknown as MessageService,
      shortLinks as unknown as ShortLinks,
      new ManualClock(NOW),
      { publicBaseUrl: 'https://t.test' } as AppConfig,
    );
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  describe('personalised HTML', () => {
    it('gives each recipient its own signed links and pixel', async () => {
      const html = await service.prepare('<body><a href="https://x.test/">x</a></body>', target);
      const first = await service.personalise(html!, { ...target, recipientIndex: 0 });
      const second = await service.personalise(html!, { ...target, recipientIndex: 1 });
      const click = /href="https:\/\/t\.test\/t\/c\/([\w-]+)"/.exec(first)![1];
      expect(tokens.verify(click, 'click')).toEqual({
        kind: 'click',
        organizationId: ORG,
        messageId: MSG,
        recipientIndex: 0,
        url: 'https://x.test/',
      });
      const open = /src="https:\/\/t\.test\/t\/o\/([\w-]+)\.gif"/.exec(second)![1];
      expect(tokens.verify(open, 'open')).toEqual({
        kind: 'open',
        organizationId: ORG,
        messageId: MSG,
        recipientIndex: 1,
      });
    });

    it('puts in only what is tracked: no pixel without opens, no link without clicks', async () => {
      const source = '<body><a href="https://x.test/">x</a></body>';
      const opensOnly = { ...target, clicks: false, recipientIndex: 0 };
      const forOpens = await service.prepare(source, opensOnly);
      const opened = await service.personalise(forOpens!, opensOnly);
      expect(opened).toContain('href="https://x.test/"');
      expect(opened).toMatch(/<img src="https:\/\/t\.test\/t\/o\/[\w-]+\.gif"/);

      const clicksOnly = { ...target, opens: false, recipientIndex: 0 };
      const forClicks = await service.prepare(source, clicksOnly);
      const clicked = await service.personalise(forClicks!, clicksOnly);
      expect(clicked).not.toContain('<img');
      expect(clicked).toMatch(/^<body><a href="https:\/\/t\.test\/t\/c\/[\w-]+">x<\/a><\/body>$/);
    });

    it('sends HTML over the caps untracked and logs ids and sizes only', async () => {
      const html = '<a href="https://secret.test/?who=a@b.test">x</a>'.repeat(
        MAX_TRACKED_LINKS + 1,
      );
      expect(await service.prepare(html, target)).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toEqual({
        msg: 'tracked HTML over the tracking limits: sent untracked',
        organizationId: ORG,
        messageId: MSG,
        reason: 'links',
        htmlBytes: Buffer.byteLength(html),
        links: MAX_TRACKED_LINKS + 1,
      });
    });
  });

  describe('hits', () => {
    const request = { userAgent: 'Mail/1.0', remoteIp: '203.0.113.9' };

    it('records an open in the engagement store and as an email.opened event, at the clock', async () => {
      await service.open(tokens.sign(claims({ kind: 'open', url: undefined })), request);
      const event = {
        type: 'opened',
        url: null,
        userAgent: 'Mail/1.0',
        remoteIp: '203.0.113.9',
        occurredAt: NOW,
      };
      expect(stores.events).toEqual([
        { organizationId: ORG, messageId: MSG, recipientIndex: 3, ...event },
      ]);
      expect(stores.engaged).toEqual([[ORG, MSG, 3, event]]);
    });

    it('records a click and leads to the URL the token was signed for', async () => {
      const url = await service.click(tokens.sign(claims()), request);
      expect(url).toBe('https://shop.example.test/p/1?a=b');
      expect(stores.events).toEqual([
        expect.objectContaining({ type: 'clicked', url, recipientIndex: 3, occurredAt: NOW }),
      ]);
      expect(stores.engaged).toEqual([[ORG, MSG, 3, expect.objectContaining({ url })]]);
      // A signed token is never looked up as a short link.
      expect(shortLinks.asked).toEqual([]);
    });

    it('keeps 512 characters of the user agent, and nulls for what the request did not say', async () => {
      await service.click(tokens.sign(claims()), { userAgent: 'u'.repeat(2000) });
      await service.click(tokens.sign(claims()), {});
      expect(stores.events.map((e) => [e.userAgent?.length ?? null, e.remoteIp])).toEqual([
        [512, null],
        [null, null],
      ]);
    });

    it("leads a short link (an SMS's) to its stored target and records the click as its message's", async () => {
      shortLinks.links.set(SHORT_ID, {
        organizationId: ORG,
        messageId: MSG,
        recipientIndex: 0,
        url: 'https://sms.example.test/offer',
      });
      expect(await service.click(SHORT_ID, request)).toBe('https://sms.example.test/offer');
      expect(stores.events).toEqual([
        expect.objectContaining({
          organizationId: ORG,
          messageId: MSG,
          recipientIndex: 0,
          type: 'clicked',
          url: 'https://sms.example.test/offer',
        }),
      ]);
    });

    it('answers 404 for a short link never made, and records nothing', async () => {
      await expect(service.click('Zz9yXw8vUt7s', request)).rejects.toThrow(NotFoundError);
      expect(shortLinks.asked).toEqual(['Zz9yXw8vUt7s']);
      expect(stores.events).toEqual([]);
    });
  });

  describe('refused tokens: 404, nothing recorded, no redirect', () => {
    const tampered = (token: string) => {
      const i = Math.floor(token.length / 2);
      return token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    };

    it.each([
      ['signed under another key', () => new TrackingTokens([randomBytes(32)]).sign(claims())],
      ['changed in one character', () => tampered(tokens.sign(claims()))],
      ['cut short', () => tokens.sign(claims()).slice(0, 40)],
      ['of the other kind (an open)', () => tokens.sign(claims({ kind: 'open', url: undefined }))],
      ['not base64url', () => 'not a token!'],
      ['empty', () => ''],
    ])('a click token %s', async (_, token) => {
      await expect(service.click(token(), {})).rejects.toThrow(NotFoundError);
      expect(stores.events).toEqual([]);
      expect(stores.engaged).toEqual([]);
    });

    it('an open token that is a click token, or signed under another key', async () => {
      await expect(service.open(tokens.sign(claims()), {})).rejects.toThrow(NotFoundError);
      const stranger = new TrackingTokens([randomBytes(32)]);
      await expect(
        service.open(stranger.sign(claims({ kind: 'open', url: undefined })), {}),
      ).rejects.toThrow(NotFoundError);
      expect(stores.events).toEqual([]);
    });

    it('a click token whose URL is not http(s)', async () => {
      const token = tokens.sign(claims({ url: 'javascript:alert(1)' }));
      await expect(service.click(token, {})).rejects.toThrow(NotFoundError);
      expect(stores.events).toEqual([]);
    });
  });

  describe('outages', () => {
    it('still redirects when the engagement store is down, and still stores the webhook event', async () => {
      stores.storeDown = new Error('engagement store unreachable');
      expect(await service.click(tokens.sign(claims()), {})).toBe(claims().url);
      expect(stores.engaged).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith({
        msg: 'engagement event not recorded',
        type: 'clicked',
        messageId: MSG,
        err: 'engagement store unreachable',
      });
    });

    it('still answers an open when the message service cannot store the webhook event', async () => {
      stores.messagesDown = new Error('database unreachable');
      await expect(
        service.open(tokens.sign(claims({ kind: 'open', url: undefined })), {}),
      ).resolves.toBeUndefined();
      expect(stores.events).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith({
        msg: 'engagement webhook event not stored',
        type: 'opened',
        messageId: MSG,
        err: 'database unreachable',
      });
    });
  });
});
