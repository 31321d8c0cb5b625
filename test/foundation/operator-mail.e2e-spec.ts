// `mp-admin operator-mail`: the mail kept for the operator (postmaster@, abuse@), stored encrypted,
// listed with its From and Subject, and written out as received.
import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InboundMessageRepository } from '@app/domain';
import { runAdmin } from '../../apps/api/src/cli';
import { RAW_OUTPUT } from '../../apps/api/src/admin/admin-command';
import { createTestApp } from '../support/app';

describe('mp-admin operator-mail', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('lists the kept mail with From and Subject, newest first, and prints one as received', async () => {
    const repo = new InboundMessageRepository(app.get(DataSource));
    const tag = randomUUID();
    const raw = (n: number) =>
      Buffer.from(
        `From: "Abuse Desk" <abuse@isp.example>\r\nTo: abuse@bounces.example.test\r\n` +
          `Subject: =?UTF-8?Q?R=C3=A9port_${n}?= ${tag}\r\n\r\nA complaint about a message.\r\n`,
      );
    const first = await repo.store(
      { kind: 'operator', recipients: ['abuse@bounces.example.test'], raw: raw(1), remoteIp: null },
      new Date(Date.now() - 1000),
    );
    const second = await repo.store(
      {
        kind: 'operator',
        recipients: ['postmaster@bounces.example.test', 'abuse@bounces.example.test'],
        raw: raw(2),
        remoteIp: '192.0.2.9',
      },
      new Date(),
    );
    // Stored encrypted: the table holds no subject.
    const [stored] = await app
      .get(DataSource)
      .query(`SELECT raw FROM inbound_messages WHERE id = $1`, [first]);
    expect(stored.raw.toString('latin1')).not.toContain(tag);

    const out = (await runAdmin(['operator-mail', '--limit', '1000', '--json'])) as {
      messages: Record<string, unknown>[];
    };
    const ours = out.messages.filter((m) => String(m.subject).endsWith(tag));
    expect(ours).toEqual([
      {
        id: second,
        recipients: ['postmaster@bounces.example.test', 'abuse@bounces.example.test'],
        receivedAt: expect.any(Date),
        size: raw(2).length,
        from: '"Abuse Desk" <abuse@isp.example>',
        subject: `Réport 2 ${tag}`,
      },
      expect.objectContaining({ id: first, subject: `Réport 1 ${tag}` }),
    ]);

    const one = await runAdmin(['operator-mail', '--id', first!]);
    expect((one as { [RAW_OUTPUT]?: Buffer })[RAW_OUTPUT]).toEqual(raw(1));
    await expect(runAdmin(['operator-mail', '--id', randomUUID()])).rejects.toMatchObject({
      code: 'E_ROW_NOT_FOUND',
    });
  });
});
