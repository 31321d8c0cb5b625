// Tracking tokens (signing, key rotation) and the per-recipient tracked HTML.
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SystemClock } from '../../common/clock';
import { asOrgId } from '../../common/org-id';
import type { AppConfig } from '../../config/app-config';
import { MAX_TRACKED_LINKS } from './html-rewriter';
import { TrackingTokens } from './tracking-token';
import { TrackingService } from './tracking.service';

const ORG = asOrgId('0b3c8d52-46a7-4c8e-9a3d-6b2f3a1d9e01');
const MSG = 'f2a1d0c4-5b6e-4f7a-8b9c-0d1e2f3a4b5c';

describe(TrackingTokens.name, () => {
  const key = randomBytes(32);
  const tokens = new TrackingTokens([key]);

  it('round-trips open and click claims', () => {
    const open = tokens.sign({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 7,
    });
    expect(tokens.verify(open, 'open')).toEqual({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 7,
    });
    const url = 'https://example.test/a?b=c&d=é';
    const click = tokens.sign({
      kind: 'click',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 0,
      url,
    });
    expect(tokens.verify(click, 'click')?.url).toBe(url);
    expect(tokens.verify(click, 'open')).toBeNull();
    expect(tokens.verify(open, 'click')).toBeNull();
  });

  it('refuses every single-character change', () => {
    const click = tokens.sign({
      kind: 'click',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 1,
      url: 'https://example.test/',
    });
    for (let i = 0; i < click.length; i++) {
      const c = click[i] === 'A' ? 'B' : 'A';
      expect(tokens.verify(click.slice(0, i) + c + click.slice(i + 1), 'click')).toBeNull();
    }
  });

  it('verifies under an older key after rotation, and not under an unknown one', () => {
    const old = tokens.sign({
      kind: 'open',
      organizationId: ORG,
      messageId: MSG,
      recipientIndex: 0,
    });
    expect(new TrackingTokens([randomBytes(32), key]).verify(old, 'open')).not.toBeNull();
    expect(new TrackingTokens([randomBytes(32)]).verify(old, 'open')).toBeNull();
  });
});

describe(TrackingService.name, () => {
  const tokens = new TrackingTokens([randomBytes(32)]);
  // Only the tokens and the base URL take part in preparing and personalising HTML.
  const service = new TrackingService(
    tokens,
    {} as never,
    {} as never,
    {} as never,
    new SystemClock(),
    {
      publicBaseUrl: 'https://t.test',
    } as AppConfig,
  );
  const target = { organizationId: ORG, messageId: MSG, opens: true, clicks: true };
  afterEach(() => jest.restoreAllMocks());

  it('gives each recipient its own signed links and pixel', async () => {
    const html = await service.prepare('<body><a href="https://x.test/">x</a></body>', {
      ...target,
    });
    const first = await service.personalise(html!, { ...target, recipientIndex: 0 });
    const second = await service.personalise(html!, { ...target, recipientIndex: 1 });
    const click = /href="https:\/\/t\.test\/t\/c\/([\w-]+)"/.exec(first)![1];
    expect(tokens.verify(click, 'click')).toMatchObject({
      recipientIndex: 0,
      url: 'https://x.test/',
    });
    const open = /src="https:\/\/t\.test\/t\/o\/([\w-]+)\.gif"/.exec(second)![1];
    expect(tokens.verify(open, 'open')).toMatchObject({ recipientIndex: 1 });
  });

  it('sends HTML over the caps untracked and logs ids and sizes only', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const html = '<a href="https://secret.test/?who=a@b.test">x</a>'.repeat(MAX_TRACKED_LINKS + 1);
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
