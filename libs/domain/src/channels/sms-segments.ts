// How many SMS segments a text costs (GSM 03.38): the message log, the composer's preview and the
// Twilio fake all count them here, so the figure shown is the one the provider bills.

/** GSM 03.38 default alphabet: one septet each. */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** GSM 03.38 extension table: sent as ESC + the character, so two septets each. */
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegmentCount {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the text occupies. */
  units: number;
  /** Segments the message is billed as; 0 for an empty text (an MMS with media only). */
  segments: number;
}

/** Single-message capacity and the capacity of each part once a user data header is needed. */
const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

/**
 * Counts the segments of `text`. A text of GSM-7 characters only is sent in GSM-7 (extension
 * characters take two septets); one character outside it sends the whole text as UCS-2, where an
 * emoji or other astral character takes two code units. A character's units are never split
 * across two parts (handsets could not rebuild it), so a part may hold one unit less.
 */
export function countSmsSegments(text: string): SmsSegmentCount {
  const chars = Array.from(text);
  const gsm = chars.every((c) => BASIC.has(c) || EXTENSION.has(c));
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2';
  const sizes = chars.map((c) => (gsm ? (EXTENSION.has(c) ? 2 : 1) : c.length));
  const units = sizes.reduce((a, b) => a + b, 0);
  const { single, part } = LIMITS[encoding];
  if (units === 0) return { encoding, units, segments: 0 };
  if (units <= single) return { encoding, units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return { encoding, units, segments };
}
