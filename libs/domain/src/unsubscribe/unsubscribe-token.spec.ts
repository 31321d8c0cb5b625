import { randomBytes } from 'node:crypto';
import { UnsubscribeTokens } from './unsubscribe-token';

const KEY = randomBytes(32);
const OLD = randomBytes(32);
const JOB = 'job_01JDX3R2F8K7Q0M9V4T6Z5Y8AB';

describe(UnsubscribeTokens.name, () => {
  const tokens = new UnsubscribeTokens([KEY]);

  it('signs a job id into 46 lower-case characters that verify back to it', () => {
    const token = tokens.sign(JOB)!;
    expect(token).toMatch(/^[0-9a-z]{46}$/);
    expect(`unsubscribe+${token}`.length).toBeLessThanOrEqual(64);
    expect(tokens.verify(token)).toBe(JOB);
  });

  it('verifies whatever the case (mail systems may change it)', () => {
    expect(tokens.verify(tokens.sign(JOB)!.toUpperCase())).toBe(JOB);
  });

  it('refuses a token with any character changed, cut or extended', () => {
    const token = tokens.sign(JOB)!;
    for (let i = 0; i < token.length; i++) {
      const c = token[i] === '0' ? '1' : '0';
      expect(tokens.verify(token.slice(0, i) + c + token.slice(i + 1))).toBeNull();
    }
    expect(tokens.verify(token.slice(0, -1))).toBeNull();
    expect(tokens.verify(`${token}0`)).toBeNull();
    expect(tokens.verify('')).toBeNull();
  });

  it('refuses a token signed under another key, and accepts one of a rotated-out key', () => {
    const other = new UnsubscribeTokens([randomBytes(32)]);
    expect(tokens.verify(other.sign(JOB)!)).toBeNull();
    const rotated = new UnsubscribeTokens([KEY, OLD]);
    expect(rotated.verify(new UnsubscribeTokens([OLD]).sign(JOB)!)).toBe(JOB);
    expect(rotated.sign(JOB)).toBe(tokens.sign(JOB));
  });

  it('signs only job ids the send path issues', () => {
    expect(tokens.sign('job_short')).toBeNull();
    expect(tokens.sign('0b8f4e3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b')).toBeNull();
  });

  it('names different jobs with different tokens', () => {
    expect(tokens.sign(JOB)).not.toBe(tokens.sign('job_01JDX3R2F8K7Q0M9V4T6Z5Y8AC'));
  });
});
