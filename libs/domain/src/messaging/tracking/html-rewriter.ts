// Rewrites an HTML body for tracking: http(s) links go through the click redirect, and an open
// pixel is added before </body>. A regular-expression pass over <a href>, not a full parser: it
// leaves anything it does not recognise untouched, which is the safe failure.
import { MAX_TRACKED_URL_LENGTH } from './tracking-token';

const ANCHOR_HREF = /(<a\b[^>]*?\shref\s*=\s*)(?:"([^"]*)"|'([^']*)')/gi;

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

export function decodeHtmlAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

export function escapeHtmlAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export interface RewriteOptions {
  /** Returns the tracked URL for an original link. */
  link?: (url: string) => string;
  /** URL of the open pixel. */
  pixel?: string;
}

export function rewriteHtmlForTracking(html: string, opts: RewriteOptions): string {
  let out = html;
  if (opts.link) {
    const link = opts.link;
    out = out.replace(ANCHOR_HREF, (whole, head: string, dq?: string, sq?: string) => {
      const url = decodeHtmlAttribute((dq ?? sq ?? '').trim());
      if (!/^https?:\/\/[^\s]+$/i.test(url) || url.length > MAX_TRACKED_URL_LENGTH) return whole;
      return `${head}"${escapeHtmlAttribute(link(url))}"`;
    });
  }
  if (opts.pixel) {
    const img = `<img src="${escapeHtmlAttribute(opts.pixel)}" width="1" height="1" alt="" style="display:none;border:0" />`;
    const close = out.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
    out = close >= 0 ? out.slice(0, close) + img + out.slice(close) : out + img;
  }
  return out;
}
