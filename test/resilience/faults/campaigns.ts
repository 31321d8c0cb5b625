// Fault: SIGKILL of the worker while a campaign fans out. Every recipient must get the campaign
// exactly once at the sink: none skipped, none sent twice by the replacement worker.
import type { Reporter } from '../support/context';
import type { Platform } from '../support/harness';
import { dataOf, ApiClient } from '../support/api-client';
import { log, sleep, tally } from '../support/util';
import { contactsCsv, startImport, waitImportDone } from './imports';
import { waitFor } from '../../support/wait-for';

interface CampaignView {
  id: string;
  status: string;
  recipientCount: number;
  sentCount: number;
  failedCount: number;
}

export async function workerKillDuringCampaign(
  p: Platform,
  reporter: Reporter,
  audience: number,
): Promise<void> {
  const name = `SIGKILL worker during a campaign fan-out`;
  const org = await p.createOrg('Resilience campaign');
  const http = new ApiClient(p.apiUrl).withKey(org.apiKey);
  const { csv, emails } = contactsCsv(audience, 'cmp');
  const importId = await startImport(http, csv, 'Campaign audience');
  await waitImportDone(http, importId, 10 * 60_000);
  const list = await p.db.query<{ id: string }>(
    `SELECT id FROM contact_lists WHERE organization_id = $1 AND name = 'Campaign audience'`,
    [org.id],
  );
  const subject = `Resilience campaign ${Date.now()}`;
  const campaign = dataOf<CampaignView>(
    await http.post('/api/v1/user/campaigns', {
      name: 'Resilience',
      subject,
      html: '<p>Hello from the resilience suite</p>',
      text: 'Hello from the resilience suite',
      from: 'Shop <news@resilience.example>',
      listId: list.rows[0].id,
    }),
    'create campaign',
    [201],
  );
  const sent = dataOf<CampaignView>(
    await http.post(`/api/v1/user/campaigns/${campaign.id}/send`),
    'send campaign',
    [202],
  );
  let requests = 5;
  const recipients = sent.recipientCount;

  const read = async () => {
    requests++;
    return dataOf<CampaignView>(
      await http.get(`/api/v1/user/campaigns/${campaign.id}`),
      'read campaign',
    );
  };
  let atKill: CampaignView | undefined;
  for (const until = Date.now() + 10 * 60_000; Date.now() < until;) {
    const v = await read();
    if (v.status !== 'sending') break;
    if (v.sentCount >= recipients * 0.3) {
      atKill = v;
      break;
    }
    await sleep(100);
  }
  if (!atKill) {
    reporter.record({
      section: 'fault',
      name,
      requests,
      errors: 1,
      lost: 0,
      passed: false,
      notes: 'the campaign ended or stalled before the worker could be killed mid-way',
    });
    return;
  }
  log(`campaign at ${atKill.sentCount}/${recipients} sent: SIGKILL worker`);
  const sinkAtKill = p.sink.messages().filter((m) => m.subject === subject).length;
  await p.restartWorker('SIGKILL');

  const final = await waitFor(
    async () => {
      const v = await read();
      return v.status === 'sending' ? undefined : v;
    },
    { what: 'the campaign to be sent', timeoutMs: 10 * 60_000, everyMs: 1000 },
  );
  // Messages the killed worker had leased are re-queued once their lease (5 min) runs out.
  const settled = await waitFor(
    async () => {
      const r = await p.db.query<{ open: string; total: string }>(
        `SELECT count(*) FILTER (WHERE status IN ('queued','deferred')) AS open, count(*) AS total
           FROM messages WHERE organization_id = $1 AND campaign_id = $2`,
        [org.id, campaign.id],
      );
      return Number(r.rows[0].open) === 0 ? Number(r.rows[0].total) : undefined;
    },
    { what: 'every campaign message to be delivered', timeoutMs: 9 * 60_000, everyMs: 2000 },
  ).catch(() => -1);
  await sleep(2000); // a delivery recorded a moment ago has reached the sink before; be generous

  const atSink = p.sink.messages().filter((m) => m.subject === subject);
  const perRecipient = tally(atSink.flatMap((m) => m.to));
  const expected = new Set(emails.map((e) => e.toLowerCase()));
  const missing = [...expected].filter((e) => !perRecipient.has(e));
  const twice = [...perRecipient.values()].filter((n) => n > 1).length;
  const strangers = [...perRecipient.keys()].filter((e) => !expected.has(e)).length;
  const passed =
    final.status === 'sent' &&
    final.sentCount === recipients &&
    final.failedCount === 0 &&
    recipients === expected.size &&
    settled === recipients &&
    missing.length === 0 &&
    twice === 0 &&
    strangers === 0;
  reporter.record({
    section: 'fault',
    name,
    requests,
    errors: twice + strangers + final.failedCount,
    lost: missing.length,
    passed,
    notes:
      `${recipients} recipients, killed at ${atKill.sentCount} sent (${sinkAtKill} at the sink); ` +
      `campaign ${final.status} sent ${final.sentCount} failed ${final.failedCount}; ` +
      `sink: ${perRecipient.size} recipients, ${missing.length} missing, ${twice} twice` +
      (settled === -1 ? '; messages still open after 9 min' : ''),
  });
}
