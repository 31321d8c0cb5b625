import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import { prepareOutgoingMessage } from '../messaging/outgoing-message';
import { ValidationFailedError } from '../errors/domain-errors';
import { htmlWithLink, listUnsubscribeHeaders, textWithLink } from './list-unsubscribe';
import { UnsubscribeLinks } from './unsubscribe-links';
import { UnsubscribeTokens } from './unsubscribe-token';

const URL = 'https://mail.example.com/u/abc';
const JOB = 'job_01JDX3R2F8K7Q0M9V4T6Z5Y8AB';
const CONTACT = '0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('list-unsubscribe', () => {
  it('builds the RFC 8058 pair of headers', () => {
    expect(listUnsubscribeHeaders({ url: URL, mailto: 'unsubscribe+abc@bounces.example' })).toEqual(
      {
        'List-Unsubscribe': `<${URL}>, <mailto:unsubscribe+abc@bounces.example>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    );
  });

  it('replaces every {{unsubscribe_url}} of the text, else appends a footer line', () => {
    expect(textWithLink('Bye: {{unsubscribe_url}} / {{ unsubscribe_url }}', URL)).toBe(
      `Bye: ${URL} / ${URL}`,
    );
    expect(textWithLink('Hello\n\n', URL)).toBe(`Hello\n\nUnsubscribe: ${URL}\n`);
    // A `$` pattern in the URL is not a replacement pattern.
    expect(textWithLink('{{unsubscribe_url}}', 'https://x.example/$&')).toBe(
      'https://x.example/$&',
    );
  });

  it('puts the link into HTML escaped, at the placeholder or before the last </body>', () => {
    const url = 'https://x.example/u/a?b=1&c=2';
    expect(htmlWithLink('<a href="{{unsubscribe_url}}">leave</a>', url)).toBe(
      '<a href="https://x.example/u/a?b=1&amp;c=2">leave</a>',
    );
    const html = htmlWithLink('<html><body><p>Hi</p></BODY ></html>', url);
    expect(html).toMatch(
      /^<html><body><p>Hi<\/p><p [^>]*>.*<a href="https:\/\/x\.example\/u\/a\?b=1&amp;c=2">Unsubscribe<\/a><\/p><\/BODY ><\/html>$/,
    );
    expect(htmlWithLink('<p>Hi</p>', url)).toMatch(/^<p>Hi<\/p><p .*Unsubscribe<\/a><\/p>$/);
  });
});

describe(UnsubscribeLinks.name, () => {
  const tokens = new UnsubscribeTokens([randomBytes(32)]);
  const config = {
    publicBaseUrl: 'https://mail.example.com',
    sendingDomains: { bounceDomain: 'bounces.example' },
  };
  const links = new UnsubscribeLinks(tokens, config as AppConfig);
  const prepared = (extra: Record<string, unknown> = {}) =>
    prepareOutgoingMessage({
      from: 'news@shop.example',
      to: 'ann@example.org',
      subject: 'Hi',
      html: '<p>Hi</p>',
      text: 'Hi',
      contactId: CONTACT,
      ...extra,
    });

  it('adds headers and links to a message that asks for them', () => {
    const { content } = prepared({ listUnsubscribe: true, headers: { 'X-Tag': 'a' } });
    const out = links.apply({ jobId: JOB, contactId: CONTACT, content });
    const token = tokens.sign(JOB)!;
    const url = `https://mail.example.com/u/${token}`;
    expect(out.content.headers).toEqual({
      'X-Tag': 'a',
      'List-Unsubscribe': `<${url}>, <mailto:unsubscribe+${token}@bounces.example>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(out.content.text).toContain(url);
    expect(out.content.html).toContain(`href="${url}"`);
    expect(content.headers).toEqual({ 'X-Tag': 'a' });
  });

  it('leaves alone a message that does not ask, has no contact, or is relayed as submitted', () => {
    const plain = { jobId: JOB, contactId: CONTACT, content: prepared().content };
    expect(links.apply(plain)).toBe(plain);
    const asked = prepared({ listUnsubscribe: true }).content;
    const noContact = { jobId: JOB, contactId: null, content: asked };
    expect(links.apply(noContact)).toBe(noContact);
    const relayed = { jobId: JOB, contactId: CONTACT, content: asked, raw: Buffer.from('x') };
    expect(links.apply(relayed)).toBe(relayed);
  });

  it('is asked for with contactId only, and owns the List-Unsubscribe headers then', () => {
    expect(() => prepared({ listUnsubscribe: true, contactId: undefined })).toThrow(
      ValidationFailedError,
    );
    try {
      prepared({ listUnsubscribe: true, headers: { 'list-unsubscribe': '<x>' } });
      throw new Error('accepted');
    } catch (err) {
      expect((err as ValidationFailedError).errors).toEqual([
        expect.objectContaining({ field: 'headers.list-unsubscribe', rule: 'unknown' }),
      ]);
    }
    expect(prepared({ headers: { 'List-Unsubscribe': '<x>' } }).content.headers).toEqual({
      'List-Unsubscribe': '<x>',
    });
    expect(prepared().content.listUnsubscribe).toBeUndefined();
  });
});
