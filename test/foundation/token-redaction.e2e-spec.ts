// Logs never carry tokens (§16): the request line of an unsubscribe, open-pixel or click request
// logs its path with the token replaced by `…`, whatever the answer and however the path is cased.
import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { setLogSink } from '@app/domain';
import { createTestApp } from '../support/app';

describe('Tokens in request logs', () => {
  let app: INestApplication;
  const lines: string[] = [];

  beforeAll(async () => {
    setLogSink((line) => lines.push(line));
    app = await createTestApp({ logLevel: 'debug' });
  });
  afterAll(async () => {
    await app.close();
    setLogSink((line) => process.stdout.write(line + '\n'));
  });

  it('logs /u/…, /t/o/….gif and /t/c/… without the token', async () => {
    const tokens = Array.from({ length: 5 }, () => randomBytes(24).toString('base64url'));
    const server = app.getHttpServer();
    await request(server).get(`/u/${tokens[0]}`);
    await request(server)
      .post(`/u/${tokens[1]}?List-Unsubscribe=One-Click`)
      .send('List-Unsubscribe=One-Click');
    await request(server).get(`/t/o/${tokens[2]}.gif`);
    await request(server).get(`/t/c/${tokens[3]}`);
    await request(server).get(`/T/C/${tokens[4]}`);
    const logged = lines
      .map((l) => JSON.parse(l) as { msg?: string; path?: string })
      .filter((l) => l.msg === 'request')
      .map((l) => l.path);
    expect(logged).toEqual(['/u/…', '/u/…', '/t/o/….gif', '/t/c/…', '/T/C/…']);
    const text = lines.join('\n');
    for (const t of tokens) expect(text).not.toContain(t);
  });
});
