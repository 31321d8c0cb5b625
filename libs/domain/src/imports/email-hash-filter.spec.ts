import { createHash } from 'node:crypto';
import { EmailHashFilter } from './email-hash-filter';

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
