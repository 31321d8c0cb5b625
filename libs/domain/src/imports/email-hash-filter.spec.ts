import { createHash } from 'node:crypto';
import { EmailHashFilter } from './email-hash-filter';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

describe(EmailHashFilter.name, () => {
  it('contains what was added (through growth), rarely what was not', () => {
    const f = new EmailHashFilter();
    for (let i = 0; i < 50_000; i++) f.add(hash(`in${i}`));
    expect(f.size).toBe(50_000);
    // Counted, then asserted once: fifty thousand expect() calls cost more than the filter.
    let missing = 0;
    for (let i = 0; i < 50_000; i++) if (!f.mightContain(hash(`in${i}`))) missing++;
    expect(missing).toBe(0);
    let falsePositives = 0;
    for (let i = 0; i < 50_000; i++) if (f.mightContain(hash(`out${i}`))) falsePositives++;
    expect(falsePositives).toBe(0);
  });
});
