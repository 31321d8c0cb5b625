// The relay's DATA intake: header caps however the message is cut, nothing held past a limit.
import { PassThrough } from 'node:stream';
import {
  HeaderMeter,
  MAX_HEADER_BYTES,
  MAX_HEADER_LINES,
  readMessage,
  ReadOptions,
} from './message-intake';

/** The meter's verdict on a message delivered in pieces of `size` bytes. */
function measure(message: string, size: number): { within: boolean; ended: boolean } {
  const meter = new HeaderMeter();
  const bytes = Buffer.from(message, 'latin1');
  let within = true;
  for (let at = 0; at < bytes.length && within && !meter.ended; at += size)
    within = meter.feed(bytes.subarray(at, at + size));
  return { within, ended: meter.ended };
}

const CHUNKINGS = [1, 2, 3, 7, 64, 1 << 20];

describe('HeaderMeter', () => {
  const lines = (n: number, eol = '\r\n') =>
    Array.from({ length: n }, (_, i) => `X-H${i}: v`).join(eol) + eol;

  it.each(CHUNKINGS)('judges the same however the message is cut (pieces of %i)', (size) => {
    expect(measure(`${lines(MAX_HEADER_LINES)}\r\nbody`, size)).toEqual({
      within: true,
      ended: true,
    });
    expect(measure(`${lines(MAX_HEADER_LINES + 1)}\r\nbody`, size).within).toBe(false);
    expect(measure(`${lines(MAX_HEADER_LINES, '\n')}\nbody`, size)).toEqual({
      within: true,
      ended: true,
    });
    expect(measure(`${lines(MAX_HEADER_LINES + 1, '\n')}\nbody`, size).within).toBe(false);
    // Folded lines count as lines.
    expect(measure(`Subject: a\r\n${' b\r\n'.repeat(MAX_HEADER_LINES)}\r\n`, size).within).toBe(
      false,
    );
  });

  it.each(CHUNKINGS)('caps the block at 64 KB, line ends included (pieces of %i)', (size) => {
    const line = (bytes: number) => `Subject: ${'s'.repeat(bytes - 'Subject: \r\n'.length)}\r\n`;
    expect(measure(`${line(MAX_HEADER_BYTES)}\r\nbody`, size)).toEqual({
      within: true,
      ended: true,
    });
    expect(measure(`${line(MAX_HEADER_BYTES + 1)}\r\nbody`, size).within).toBe(false);
  });

  it('refuses a long line before its end arrives', () => {
    const meter = new HeaderMeter();
    // One byte of slack: an open line's last byte may be the CR of the empty line.
    expect(meter.feed(Buffer.alloc(MAX_HEADER_BYTES + 1, 0x61))).toBe(true);
    expect(meter.feed(Buffer.from('a'))).toBe(false);
  });

  it('does not count the body, however large', () => {
    expect(measure(`Subject: s\r\n\r\n${lines(5_000)}`, 64)).toEqual({ within: true, ended: true });
    // A CR alone on a line, split from its LF, still ends the block.
    const meter = new HeaderMeter();
    meter.feed(Buffer.from('Subject: s\r\n\r'));
    meter.feed(Buffer.from(`\n${'x'.repeat(100_000)}`));
    expect(meter.ended).toBe(true);
    expect(meter.exceeded).toBe(false);
  });
});

describe('readMessage', () => {
  async function read(pieces: string[], maxBytes: number, options?: ReadOptions) {
    const stream = new PassThrough();
    const result = readMessage(stream, maxBytes, options);
    for (const p of pieces) stream.write(Buffer.from(p));
    stream.end();
    return result;
  }

  it('returns the message whole when within the limits', async () => {
    const result = await read(['Subject: s\r\n', '\r\nbo', 'dy\r\n'], 100);
    expect(result).toEqual({ raw: Buffer.from('Subject: s\r\n\r\nbody\r\n'), received: 20 });
  });

  it('refuses a message over the size limit and a header block over a cap', async () => {
    expect(await read(['Subject: s\r\n\r\n', 'x'.repeat(90), 'y'.repeat(20)], 100)).toEqual({
      refused: 'size',
    });
    expect(await read([`${'X: v\r\n'.repeat(MAX_HEADER_LINES + 1)}\r\n`], 1 << 20)).toEqual({
      refused: 'header',
    });
  });

  it('keeps the first maxBytes of a message over the limit when asked, and counts the rest', async () => {
    const head = 'Subject: s\r\n\r\n';
    for (const pieces of [
      [head, 'x'.repeat(90), 'y'.repeat(20), 'z'.repeat(1000)],
      [head + 'x'.repeat(90) + 'y'.repeat(1020)],
      [...(head + 'x'.repeat(90) + 'y'.repeat(1020))],
    ]) {
      const result = await read(pieces, 100, { overLimit: 'keepHead' });
      expect(result).toEqual({
        raw: Buffer.from(head + 'x'.repeat(86)),
        received: head.length + 90 + 1020,
      });
    }
  });

  it('still refuses a header block over a cap when keeping the head', async () => {
    expect(
      await read([`${'X: v\r\n'.repeat(MAX_HEADER_LINES + 1)}\r\n`], 1 << 20, {
        overLimit: 'keepHead',
      }),
    ).toEqual({ refused: 'header' });
  });
});
