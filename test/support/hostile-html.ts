// Tracked HTML of hostile shape (§16), shared by the e2e file that checks how the worker tracks
// it and the bench that times the worker's /health meanwhile.
import { MAX_TRACKED_HTML_BYTES } from '@app/domain';

/**
 * Just under the size cap, so it is tracked: real links, many </body> (the pixel goes before the
 * last), then one tag that never closes: `<a <a <a …` and attributes whose values run into the
 * next ones (inputs on which a regular-expression rewriter takes quadratic time).
 */
export function hostileTrackedHtml(): { html: string; tail: string; links: number } {
  const links = 1000;
  let head = '<html><body><p>Offers</p>';
  for (let i = 0; i < links; i++) head += `<a href="https://shop.example.test/p/${i}">p${i}</a>`;
  head += '</body>'.repeat(100_000);
  const unterminated = '<a href="https://x.example.test/ title=\'t '.repeat(20_000);
  const room = MAX_TRACKED_HTML_BYTES - 64 - head.length - unterminated.length;
  const tail = '<a '.repeat(Math.floor(room / 3)) + unterminated;
  return { html: head + tail, tail, links };
}
