// The number of sending domains an organization may hold (§16): the plan's (free 3, pro 50,
// enterprise 500) or the organization's override set with `mp-admin set-limits --sending-domains`,
// 409 beyond, and held under concurrent creates.
import { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runAdmin } from '../../apps/api/src/cli';
import { sendingEnv } from '../sending/support/sending';
import { createTestApp } from '../support/app';
import { createSession } from '../support/session';
import { BOUNCE_DOMAIN, uniqueDomain } from './support';

const BASE = '/api/v1/user/sending-domains';
const LIMIT_REACHED = {
  success: false,
  message: 'Sending domain limit reached',
  code: 'E_BUSINESS_RULE_VIOLATION',
};

describe('Sending domain limit', () => {
  let app: INestApplication;

  beforeAll(async () => {
    sendingEnv({ BOUNCE_DOMAIN });
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  const held = async (organizationId: string): Promise<number> =>
    (
      await app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM sending_domains WHERE organization_id = $1`, [
          organizationId,
        ])
    )[0].n as number;

  it('lets a free organization hold 3 domains; the 4th is 409 until one is deleted', async () => {
    const s = await createSession(app);
    const ids: string[] = [];
    for (const prefix of ['one', 'two', 'three']) {
      ids.push((await s.http.post(BASE, { name: uniqueDomain(prefix) }).expect(201)).body.data.id);
    }
    const fourth = await s.http.post(BASE, { name: uniqueDomain('four') }).expect(409);
    expect(fourth.body).toEqual(LIMIT_REACHED);
    expect(await held(s.org.id)).toBe(3);

    await s.http.delete(`${BASE}/${ids[0]}`).expect(200);
    await s.http.post(BASE, { name: uniqueDomain('four') }).expect(201);
    expect(await held(s.org.id)).toBe(3);
  });

  it('holds an override set by set-limits under concurrent creates, and returns to the plan with default', async () => {
    const s = await createSession(app, { plan: 'pro' });
    const set = await runAdmin([
      'set-limits',
      ...['--org', s.org.id, '--sending-domains', '2', '--json'],
    ]);
    expect(set.organization).toMatchObject({
      limits: { sendingDomains: 2 },
      effective: { sendingDomains: 2 },
    });

    const creates = await Promise.all(
      Array.from({ length: 6 }, (_, i) => s.http.post(BASE, { name: uniqueDomain(`race${i}`) })),
    );
    const statuses = creates.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 409, 409, 409, 409]);
    for (const r of creates.filter((c) => c.status === 409)) expect(r.body).toEqual(LIMIT_REACHED);
    expect(await held(s.org.id)).toBe(2);

    // Another organization is not counted against it.
    const other = await createSession(app);
    await other.http.post(BASE, { name: uniqueDomain('other') }).expect(201);

    const back = await runAdmin(['set-limits', '--org', s.org.id, '--sending-domains', 'default']);
    expect(back.organization).toMatchObject({
      limits: { sendingDomains: 'default' },
      effective: { sendingDomains: 50 },
    });
    await s.http.post(BASE, { name: uniqueDomain('third') }).expect(201);

    await runAdmin(['set-limits', '--org', s.org.id, '--sending-domains', '0']);
    expect((await s.http.post(BASE, { name: uniqueDomain('none') }).expect(409)).body).toEqual(
      LIMIT_REACHED,
    );
    await expect(
      runAdmin(['set-limits', '--org', s.org.id, '--sending-domains', 'many']),
    ).rejects.toMatchObject({
      errors: [
        expect.objectContaining({
          field: 'sending-domains',
          message: '--sending-domains must be a whole number or default, got "many"',
        }),
      ],
    });
  });
});
