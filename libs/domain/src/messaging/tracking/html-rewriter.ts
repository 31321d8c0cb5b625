// Rewrites an HTML body for tracking (§8, §16): http(s) links go through the click redirect and an
// open pixel goes before the last </body>. htmlparser2's tokenizer finds them in linear time; the
// new values are spliced into the original text, which is otherwise left byte for byte as it was.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { QuoteType, Tokenizer } from 'htmlparser2';
import type { TokenizerCallbacks } from 'htmlparser2';
import { MAX_TRACKED_URL_LENGTH } from './tracking-token';

/** Tracked HTML larger than this (UTF-8 bytes) is sent untracked. */
export const MAX_TRACKED_HTML_BYTES = 5 * 1024 * 1024;
/** Tracked HTML with more trackable links than this (when clicks are tracked) is sent untracked. */
export const MAX_TRACKED_LINKS = 5000;
/** Characters tokenized per event-loop turn: well under a millisecond of work. */
export const SCAN_CHUNK_CHARS = 16 * 1024;
/** Links signed per event-loop turn while rendering (each signature is an HMAC). */
export const LINKS_PER_TURN = 250;

const TRACKABLE_URL = /^https?:\/\/[^\s]+$/i;
/**
 * Characters of an href value kept while reading it (white space around the URL included): a
 * longer value is not a trackable URL, and keeping all of a megabyte-long one only feeds the
 * garbage collector.
 */
const HREF_READ_LIMIT = 2 * MAX_TRACKED_URL_LENGTH;

export function escapeHtmlAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** One href value to replace: its source range (quotes included) and the URL it decodes to. */
export interface TrackableLink {
  start: number;
  end: number;
  url: string;
}

/** Where tracking goes in one HTML body; the same for every recipient of a message. */
export interface TrackableHtml {
  html: string;
  /** In source order. Empty unless clicks are tracked. */
  links: TrackableLink[];
  /** The offset of the last </body>, or the end of the text. */
  pixelAt: number;
}

export type HtmlScan =
  | { tracked: true; html: TrackableHtml }
  | { tracked: false; reason: 'size' | 'links'; htmlBytes: number; links: number };

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/** Tokenizer callbacks that note the first href of each <a> and the last </body>. */
class LinkFinder implements TokenizerCallbacks {
  readonly links: TrackableLink[] = [];
  lastBodyClose = -1;
  private inAnchor = false;
  private hrefSeen = false;
  /** The href being read: where its name ends, and its value decoded so far. */
  private href: { nameEnd: number; value: string } | null = null;
  /** The link of the tag being read, kept only if the tag completes. */
  private pending: TrackableLink | null = null;

  constructor(private readonly source: string) {}

  private named(start: number, end: number, name: string): boolean {
    return end - start === name.length && this.source.slice(start, end).toLowerCase() === name;
  }

  onopentagname(start: number, end: number): void {
    this.inAnchor = this.named(start, end, 'a');
    this.hrefSeen = false;
    this.pending = null;
  }

  onattribname(start: number, end: number): void {
    // A browser follows the first href of a tag; later ones are left alone.
    this.href = null;
    if (!this.inAnchor || this.hrefSeen || !this.named(start, end, 'href')) return;
    this.hrefSeen = true;
    this.href = { nameEnd: end, value: '' };
  }

  onattribdata(start: number, end: number): void {
    const href = this.href;
    if (!href || href.value.length > HREF_READ_LIMIT) return;
    href.value += this.source.slice(start, Math.min(end, start + HREF_READ_LIMIT));
  }

  onattribentity(codepoint: number): void {
    const href = this.href;
    if (href && href.value.length <= HREF_READ_LIMIT) href.value += String.fromCodePoint(codepoint);
  }

  onattribend(quote: QuoteType, end: number): void {
    const href = this.href;
    this.href = null;
    if (!href || quote === QuoteType.NoValue || href.value.length > HREF_READ_LIMIT) return;
    const url = href.value.trim();
    if (url.length > MAX_TRACKED_URL_LENGTH || !TRACKABLE_URL.test(url)) return;
    // The value (with its quotes) starts after `=` and any white space following it.
    let start = this.source.indexOf('=', href.nameEnd) + 1;
    while (isSpace(this.source.charCodeAt(start))) start++;
    this.pending = { start, end, url };
  }

  onopentagend(): void {
    this.endTag();
  }

  onselfclosingtag(): void {
    this.endTag();
  }

  private endTag(): void {
    if (this.pending) this.links.push(this.pending);
    this.pending = null;
    this.inAnchor = false;
  }

  onclosetag(start: number, end: number): void {
    if (this.named(start, end, 'body')) this.lastBodyClose = start;
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onend(): void {}
  onprocessinginstruction(): void {}
  ontext(): void {}
  ontextentity(): void {}
}

/**
 * Finds where tracking goes in `html`, a chunk per event-loop turn so that a large body never
 * holds the loop. Untracked when the body is over MAX_TRACKED_HTML_BYTES or, with `clicks`, has
 * more than MAX_TRACKED_LINKS trackable links.
 */
export async function scanHtmlForTracking(
  html: string,
  opts: { clicks: boolean },
): Promise<HtmlScan> {
  const htmlBytes = Buffer.byteLength(html, 'utf8');
  if (htmlBytes > MAX_TRACKED_HTML_BYTES) {
    return { tracked: false, reason: 'size', htmlBytes, links: 0 };
  }
  const finder = new LinkFinder(html);
  const tokenizer = new Tokenizer({ decodeEntities: true }, finder);
  for (let at = 0; at < html.length; at += SCAN_CHUNK_CHARS) {
    // Yields first too: the caller's own work (reading megabytes of message) ends its turn.
    await nextTurn();
    tokenizer.write(html.slice(at, at + SCAN_CHUNK_CHARS));
    if (opts.clicks && finder.links.length > MAX_TRACKED_LINKS) {
      return { tracked: false, reason: 'links', htmlBytes, links: finder.links.length };
    }
  }
  tokenizer.end();
  if (opts.clicks && finder.links.length > MAX_TRACKED_LINKS) {
    return { tracked: false, reason: 'links', htmlBytes, links: finder.links.length };
  }
  return {
    tracked: true,
    html: {
      html,
      links: opts.clicks ? finder.links : [],
      // The `<` of that </body> (white space may sit between `</` and the name).
      pixelAt:
        finder.lastBodyClose >= 0 ? html.lastIndexOf('<', finder.lastBodyClose) : html.length,
    },
  };
}

export interface RewriteOptions {
  /** Returns the tracked URL for an original link. */
  link?: (url: string) => string;
  /** URL of the open pixel. */
  pixel?: string;
}

/**
 * One recipient's HTML: the scanned body with its links and pixel put in, LINKS_PER_TURN links per
 * event-loop turn.
 */
export async function renderTrackedHtml(t: TrackableHtml, opts: RewriteOptions): Promise<string> {
  const parts: string[] = [];
  let at = 0;
  let pixel = opts.pixel
    ? `<img src="${escapeHtmlAttribute(opts.pixel)}" width="1" height="1" alt="" style="display:none;border:0" />`
    : null;
  const putPixel = () => {
    parts.push(t.html.slice(at, t.pixelAt), pixel!);
    at = t.pixelAt;
    pixel = null;
  };
  const links = opts.link ? t.links : [];
  for (let i = 0; i < links.length; i++) {
    if (i % LINKS_PER_TURN === 0) await nextTurn();
    const l = links[i];
    if (pixel && t.pixelAt <= l.start) putPixel();
    parts.push(t.html.slice(at, l.start), `"${escapeHtmlAttribute(opts.link!(l.url))}"`);
    at = l.end;
  }
  // A turn of its own for the join too (megabytes), and for each recipient of a message.
  await nextTurn();
  if (pixel) putPixel();
  parts.push(t.html.slice(at));
  return parts.join('');
}
