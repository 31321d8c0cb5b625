// Tracked HTML: links and pixel placed in one linear pass, everything else left byte for byte.
import { Tokenizer } from 'htmlparser2';
import {
  LINKS_PER_TURN,
  MAX_TRACKED_HTML_BYTES,
  MAX_TRACKED_LINKS,
  renderTrackedHtml,
  RewriteOptions,
  SCAN_CHUNK_CHARS,
  scanHtmlForTracking,
} from './html-rewriter';
import { MAX_TRACKED_URL_LENGTH } from './tracking-token';
import { turnCounter } from '../../../../../test/support/event-loop';

/** Scan and render as the delivery does; null when the body goes untracked. */
async function rewrite(html: string, opts: RewriteOptions): Promise<string | null> {
  const scan = await scanHtmlForTracking(html, { clicks: !!opts.link });
  return scan.tracked ? await renderTrackedHtml(scan.html, opts) : null;
}

/** Rewrites every link to `T<n>` and records the URLs seen. */
function numbered(): { seen: string[]; link: (u: string) => string } {
  const seen: string[] = [];
  return { seen, link: (u) => (seen.push(u), `T${seen.length}`) };
}

describe('tracking HTML rewrite', () => {
  it('rewrites http(s) links, decodes entities, and adds the pixel before </body>', async () => {
    const seen: string[] = [];
    const out = await rewrite(
      `<html><BODY><a href="https://x.test/?a=1&amp;b=2">x</a><a href='mailto:a@b.test'>m</a>` +
        `<a title="t" href = 'http://y.test/'>y</a></BODY></html>`,
      {
        link: (u) => (seen.push(u), `https://t.test/c/${seen.length}`),
        pixel: 'https://t.test/o/p.gif',
      },
    );
    expect(seen).toEqual(['https://x.test/?a=1&b=2', 'http://y.test/']);
    expect(out).toContain('<a href="https://t.test/c/1">x</a>');
    expect(out).toContain(`href='mailto:a@b.test'`);
    expect(out).toContain('<a title="t" href = "https://t.test/c/2">y</a>');
    expect(out).toMatch(/<img src="https:\/\/t\.test\/o\/p\.gif"[^>]*\/><\/BODY><\/html>$/);
  });

  it('appends the pixel when there is no body element', async () => {
    expect(await rewrite('<p>hi</p>', { pixel: 'p.gif' })).toMatch(/^<p>hi<\/p><img /);
  });

  it('decodes numeric and named references, and keeps unknown ones as written', async () => {
    const { seen, link } = numbered();
    await rewrite('<a href="https://x.test/?a&#38;b&#x26;c&quot;&unknown;">x</a>', { link });
    expect(seen).toEqual(['https://x.test/?a&b&c"&unknown;']);
  });

  it('escapes the new value and quotes an unquoted one', async () => {
    const out = await rewrite('<a class=x href=https://x.test/u>u</a>', {
      link: () => 'https://t.test/c?a=1&b="2"',
    });
    expect(out).toBe('<a class=x href="https://t.test/c?a=1&amp;b=&quot;2&quot;">u</a>');
  });

  it('leaves every other byte as it was', async () => {
    const html =
      '<!DOCTYPE html>\n<html><head><style>a[href^="https://"]{color:red}</style></head>\r\n' +
      '<body>Ünïcödé &nbsp; <b >bold</b ><a\thref="https://x.test/"\ndata-x=\'&amp;\'>x</a>' +
      '<img src="https://img.test/i.png" alt=">"/></body></html>';
    const out = await rewrite(html, { link: () => 'T' });
    expect(out).toBe(html.replace('"https://x.test/"', '"T"'));
  });

  it('rewrites only the first href of an <a>, and none in comments, scripts or other tags', async () => {
    const { seen, link } = numbered();
    const html =
      '<!-- <a href="https://c.test/"> --><script>"<a href=\'https://s.test/\'>"</script>' +
      '<link href="https://l.test/"><area href="https://r.test/">' +
      '<a href="https://first.test/" HREF="https://second.test/">x</a>' +
      '<a title=\'<a href="https://in.test/">\'>y</a>';
    const out = await rewrite(html, { link });
    expect(seen).toEqual(['https://first.test/']);
    expect(out).toBe(html.replace('"https://first.test/"', '"T1"'));
  });

  it('leaves non-http links, over-long links and a tag cut off by the end alone', async () => {
    const long = `https://x.test/${'a'.repeat(MAX_TRACKED_URL_LENGTH)}`;
    const html =
      '<a href="javascript:alert(1)">j</a><a href="ftp://f.test/">f</a><a href="">e</a>' +
      `<a href>n</a><a href="https://x.test/ y">s</a><a href="${long}">l</a>` +
      '<a href="https://cut.test/"';
    const { seen, link } = numbered();
    expect(await rewrite(html, { link })).toBe(html);
    expect(seen).toEqual([]);
  });

  it('puts the pixel before the last </body> outside comments', async () => {
    const out = await rewrite('<body>a</body ><p>b</p></BODY><!-- </body> -->', { pixel: 'p' });
    expect(out).toMatch(/^<body>a<\/body ><p>b<\/p><img src="p"[^>]*\/><\/BODY><!-- <\/body> -->$/);
  });

  it('finds links and references split across the chunks it reads', async () => {
    for (let pad = SCAN_CHUNK_CHARS - 40; pad < SCAN_CHUNK_CHARS + 5; pad++) {
      const html = `${'x'.repeat(pad)}<a href="https://x.test/?a=1&amp;b=2">x</a></body>`;
      const { seen, link } = numbered();
      const out = await rewrite(html, { link, pixel: 'p' });
      expect(seen).toEqual(['https://x.test/?a=1&b=2']);
      expect(out!.slice(pad)).toMatch(/^<a href="T1">x<\/a><img src="p"[^>]*\/><\/body>$/);
    }
  });

  describe('caps (§16)', () => {
    const links = (n: number) => '<a href="https://x.test/">x</a>'.repeat(n);

    it(`tracks ${MAX_TRACKED_LINKS} links and sends more untracked`, async () => {
      const atCap = await scanHtmlForTracking(links(MAX_TRACKED_LINKS), { clicks: true });
      expect(atCap.tracked && atCap.html.links.length).toBe(MAX_TRACKED_LINKS);
      const over = await scanHtmlForTracking(links(MAX_TRACKED_LINKS + 1), { clicks: true });
      expect(over).toMatchObject({ tracked: false, reason: 'links' });
      // Without click tracking the links are not rewritten, and do not count.
      const opensOnly = await scanHtmlForTracking(links(MAX_TRACKED_LINKS + 1), { clicks: false });
      expect(opensOnly).toMatchObject({ tracked: true, html: { links: [] } });
    });

    it(`tracks ${MAX_TRACKED_HTML_BYTES} bytes of UTF-8 and sends more untracked`, async () => {
      const body = (bytes: number) => `<p>${'é'.repeat((bytes - 8) / 2)}</p>.`;
      expect(Buffer.byteLength(body(MAX_TRACKED_HTML_BYTES))).toBe(MAX_TRACKED_HTML_BYTES);
      const atCap = await scanHtmlForTracking(body(MAX_TRACKED_HTML_BYTES) + '.', {
        clicks: true,
      });
      expect(atCap).toMatchObject({ tracked: false, reason: 'size' });
      const under = await scanHtmlForTracking(body(MAX_TRACKED_HTML_BYTES), { clicks: true });
      expect(under.tracked).toBe(true);
    });
  });

  describe('event-loop turns', () => {
    afterEach(() => jest.restoreAllMocks());

    it(`tokenizes at most ${SCAN_CHUNK_CHARS} characters per turn, each piece in a turn of its own`, async () => {
      const write = Tokenizer.prototype.write;
      const counter = turnCounter();
      const pieces: { chars: number; turn: number }[] = [];
      jest.spyOn(Tokenizer.prototype, 'write').mockImplementation(function (
        this: Tokenizer,
        chunk: string,
      ) {
        pieces.push({ chars: chunk.length, turn: counter.turns() });
        return write.call(this, chunk);
      });
      const html = '<a href="https://x.test/">x</a> '.repeat(4000);
      const scan = await scanHtmlForTracking(html, { clicks: true });
      counter.stop();

      expect(scan.tracked && scan.html.links).toHaveLength(4000);
      expect(pieces).toHaveLength(Math.ceil(html.length / SCAN_CHUNK_CHARS));
      expect(pieces.reduce((sum, p) => sum + p.chars, 0)).toBe(html.length);
      expect(pieces.filter((p) => p.chars > SCAN_CHUNK_CHARS)).toEqual([]);
      for (let i = 1; i < pieces.length; i++)
        expect(pieces[i].turn).toBeGreaterThan(pieces[i - 1].turn);
    });

    it(`renders at most ${LINKS_PER_TURN} links per turn`, async () => {
      const links = 3 * LINKS_PER_TURN + 1;
      const scan = await scanHtmlForTracking('<a href="https://x.test/">x</a>'.repeat(links), {
        clicks: true,
      });
      if (!scan.tracked) throw new Error('sent untracked');
      const counter = turnCounter();
      const perTurn = new Map<number, number>();
      await renderTrackedHtml(scan.html, {
        link: (u) => {
          perTurn.set(counter.turns(), (perTurn.get(counter.turns()) ?? 0) + 1);
          return u;
        },
      });
      counter.stop();
      expect([...perTurn.values()]).toEqual([LINKS_PER_TURN, LINKS_PER_TURN, LINKS_PER_TURN, 1]);
    });
  });

  describe('linear time on pathological input', () => {
    /**
     * Best of three runs of scan and render, in ms of this process's CPU time: unlike wall-clock
     * time it does not grow when other processes share the cores.
     */
    async function cpuTimeOf(html: string): Promise<number> {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const start = process.cpuUsage();
        await rewrite(html, { link: (u) => u, pixel: 'p' });
        const used = process.cpuUsage(start);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    }

    // Shapes on which a rewriter built on regular expressions takes quadratic time.
    const shapes: [string, (n: number) => string][] = [
      ['one tag of <a <a <a …', (n) => '<a '.repeat(n / 3)],
      [
        'attribute values running into each other',
        (n) => '<a href="https://x.test/ '.repeat(n / 24),
      ],
      ['many </body>', (n) => '</body>'.repeat(n / 7)],
      ['a long href of references', (n) => `<a href="https://x.test/?${'&amp;'.repeat(n / 5)}">`],
    ];

    it.each(shapes)('%s: 16× the input takes far less than 256× the time', async (_, make) => {
      const n = 32 * 1024;
      await cpuTimeOf(make(n));
      const small = await cpuTimeOf(make(n));
      const large = await cpuTimeOf(make(16 * n));
      // Linear is about 16 (a little more with garbage collection); quadratic would be 256.
      expect(large / small).toBeLessThan(64);
    });
  });
});
