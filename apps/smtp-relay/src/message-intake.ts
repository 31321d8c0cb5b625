// Reads one DATA stream under the relay's limits (§9, §16): the header block is measured as it
// arrives, before any header parser sees it, and once a limit is passed the rest of the stream is
// read and dropped instead of held.
import type { Readable } from 'node:stream';

export const MAX_HEADER_BYTES = 64 * 1024;
export const MAX_HEADER_LINES = 1_000;

const LF = 0x0a;
const CR = 0x0d;

/**
 * Bytes and lines of an RFC 5322 header block (every line up to the first empty one, folded
 * continuation lines included), counted chunk by chunk: one native newline search per line, and
 * never more than the caps allow, so a flood costs no more than a legal header.
 */
export class HeaderMeter {
  /** The empty line ending the block has been seen. */
  ended = false;
  /** Once ended: the block's length, its empty line included. */
  length = 0;
  /** The block is over a cap. */
  exceeded = false;
  private bytes = 0;
  private lines = 0;
  /** Bytes of the current line so far, without its LF, and the first of them. */
  private lineLength = 0;
  private lineFirst = -1;

  /** Measures the next chunk of the message; true while the block is within both caps. */
  feed(chunk: Buffer): boolean {
    let pos = 0;
    while (!this.ended && !this.exceeded && pos < chunk.length) {
      const lf = chunk.indexOf(LF, pos);
      const stop = lf < 0 ? chunk.length : lf;
      if (this.lineLength === 0 && stop > pos) this.lineFirst = chunk[pos];
      this.lineLength += stop - pos;
      if (lf < 0) {
        // A line still open counts already, so a long one is refused before its end arrives;
        // one byte of slack, as that byte may be the CR of the empty line ending the block.
        this.exceeded = this.bytes + this.lineLength > MAX_HEADER_BYTES + 1;
        break;
      }
      if (this.lineLength === 0 || (this.lineLength === 1 && this.lineFirst === CR)) {
        this.ended = true;
        this.length = this.bytes + this.lineLength + 1;
        break;
      }
      this.bytes += this.lineLength + 1;
      this.lines += 1;
      this.lineLength = 0;
      this.exceeded = this.bytes > MAX_HEADER_BYTES || this.lines > MAX_HEADER_LINES;
      pos = lf + 1;
    }
    return !this.exceeded;
  }
}

/**
 * The message kept, and how many bytes of DATA arrived (more than kept when the head was kept),
 * or why it is refused.
 */
export type Intake = { raw: Buffer; received: number } | { refused: 'size' | 'header' };

export interface ReadOptions {
  /**
   * Past `maxBytes`: `refuse` the message (the relay), or keep its first `maxBytes` bytes and
   * drop the rest (the inbound port: a report puts what it says first, and refusing a bounce only
   * makes the remote server send another).
   */
  overLimit?: 'refuse' | 'keepHead';
}

/**
 * The message, or why it is refused. Chunks are kept only while the header block is within its
 * caps and the total within `maxBytes`; after that the stream keeps flowing (the client is still
 * sending, and the reply comes only after its final dot) but every chunk is dropped.
 */
export function readMessage(
  stream: Readable,
  maxBytes: number,
  { overLimit = 'refuse' }: ReadOptions = {},
): Promise<Intake> {
  return new Promise<Intake>((resolve, reject) => {
    const meter = new HeaderMeter();
    let chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    let refused: 'size' | 'header' | undefined;
    const refuse = (why: 'size' | 'header') => {
      refused = why;
      chunks = [];
    };
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (refused) return;
      if (!meter.ended && !meter.feed(chunk)) return refuse('header');
      if (kept + chunk.length > maxBytes) {
        if (overLimit === 'refuse') return refuse('size');
        if (kept === maxBytes) return;
        // A copy: a slice would pin the whole chunk.
        chunk = Buffer.from(chunk.subarray(0, maxBytes - kept));
      }
      kept += chunk.length;
      chunks.push(chunk);
    });
    stream.once('end', () =>
      resolve(refused ? { refused } : { raw: Buffer.concat(chunks, kept), received }),
    );
    stream.once('error', reject);
  });
}
