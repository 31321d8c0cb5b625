// Segment counting against the GSM 03.38 / 3GPP TS 23.040 limits: 160 septets or 153 per part,
// 70 UCS-2 code units or 67 per part, extension characters two septets.
import { countSmsSegments } from './sms-segments';

describe(countSmsSegments.name, () => {
  it.each([
    ['', 'GSM-7', 0, 0],
    ['Hello', 'GSM-7', 5, 1],
    ['a'.repeat(160), 'GSM-7', 160, 1],
    ['a'.repeat(161), 'GSM-7', 161, 2],
    ['a'.repeat(306), 'GSM-7', 306, 2],
    ['a'.repeat(307), 'GSM-7', 307, 3],
    ['a'.repeat(1600), 'GSM-7', 1600, 11],
    // Accented letters of the default alphabet stay GSM-7.
    ['Café à Zürich, ñandù, Øresund', 'GSM-7', 29, 1],
    // ú is not in the default alphabet (ù is).
    ['ñandú', 'UCS-2', 5, 1],
    // Extension characters count two septets.
    ['€'.repeat(80), 'GSM-7', 160, 1],
    ['€'.repeat(81), 'GSM-7', 162, 2],
    ['{}[]~|^\\', 'GSM-7', 16, 1],
    // One non-GSM character turns the whole text into UCS-2.
    ['ж'.repeat(70), 'UCS-2', 70, 1],
    ['ж'.repeat(71), 'UCS-2', 71, 2],
    ['ж'.repeat(134), 'UCS-2', 134, 2],
    ['ж'.repeat(135), 'UCS-2', 135, 3],
    ['a'.repeat(69) + 'ç', 'UCS-2', 70, 1],
    ['Smart “quotes”', 'UCS-2', 14, 1],
    // An emoji is a surrogate pair: two code units.
    ['😀'.repeat(35), 'UCS-2', 70, 1],
    ['😀'.repeat(36), 'UCS-2', 72, 2],
  ])('%j → %s, %i units, %i segments', (text, encoding, units, segments) => {
    expect(countSmsSegments(text)).toEqual({ encoding, units, segments });
  });

  it('never splits an escape sequence across two parts', () => {
    // 152 septets then a two-septet '€' does not fit the first part's 153: a third part follows.
    const text = 'a'.repeat(152) + '€' + 'a'.repeat(152);
    expect(countSmsSegments(text)).toEqual({ encoding: 'GSM-7', units: 306, segments: 3 });
  });

  it('never splits a surrogate pair across two parts', () => {
    const text = 'ж'.repeat(66) + '😀' + 'ж'.repeat(66);
    expect(countSmsSegments(text)).toEqual({ encoding: 'UCS-2', units: 134, segments: 3 });
  });
});
