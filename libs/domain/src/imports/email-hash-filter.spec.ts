import { createHash } from 'node:crypto';
import { EmailHashFilter } from './email-hash-filter';
import { uuidv7 } from './time-ordered-id';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

describe(EmailHashFilter.name, () => {
  it('contains what was added (through growth), rarely what was not', () => {
    const f = new EmailHashFilter();
    for (let i = 0; i < 50_000; i++) f.add(hash(`in${i}`));
    expect(f.size).toBe(50_000);
    for (let i = 0; i < 50_000; i++) expect(f.mightContain(hash(`in${i}`))).toBe(true);
    let falsePositives = 0;
    for (let i = 0; i < 50_000; i++) if (f.mightContain(hash(`out${i}`))) falsePositives++;
    expect(falsePositives).toBe(0);
  });
});

describe('uuidv7', () => {
  it('is a version 7, variant 1 UUID ordered by its millisecond', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7())).size).toBe(10_000);
  });
});
