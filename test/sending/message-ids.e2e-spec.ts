// Job ids and Message-IDs are unguessable (§16): each carries 80 fresh random bits, so concurrent
// sends of two organizations never get neighbouring ids from which one could work out the other's.
import { INestApplication } from '@nestjs/common';
import { createTestApp } from '../support/app';
import { createSession, Session } from '../support/session';
import { basicEmail, sendingEnv } from './support/sending';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The 80-bit random part of a ULID (its last 16 characters) as a number. */
function randomPart(ulid: string): bigint {
  return [...ulid.slice(10)].reduce((n, c) => n * 32n + BigInt(CROCKFORD.indexOf(c)), 0n);
}

describe('message ids', () => {
  let app: INestApplication;
  let a: Session;
  let b: Session;

  beforeAll(async () => {
    sendingEnv();
    app = await createTestApp();
    a = await createSession(app, { plan: 'enterprise' });
    b = await createSession(app, { plan: 'enterprise' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('gives 24 concurrent sends ids whose random parts are far apart, across organizations', async () => {
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? a : b).http.post('/api/v1/send', basicEmail()).expect(202),
      ),
    );
    const ids = responses.map((r) => {
      const { jobId, messageId } = r.body.data as { jobId: string; messageId: string };
      const ulid = /^job_([0-9A-HJKMNP-TV-Z]{26})$/.exec(jobId)![1];
      expect(messageId).toMatch(new RegExp(`^<${ulid}@`));
      return ulid;
    });
    expect(new Set(ids).size).toBe(24);
    const parts = ids.map(randomPart);
    for (let i = 0; i < parts.length; i++) {
      for (let j = i + 1; j < parts.length; j++) {
        const gap = parts[i] > parts[j] ? parts[i] - parts[j] : parts[j] - parts[i];
        expect(gap > 2n ** 32n).toBe(true);
      }
    }
  });
});
