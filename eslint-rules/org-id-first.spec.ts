// The tenancy rule: which repository methods it accepts and refuses, and that the project's
// configuration applies it to repositories (and not to sweepers or the exempt methods).
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import rule from './org-id-first.js';
import { projectLint } from './project-lint';

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
});

const repository = (body: string) => `export class ThingRepository {\n${body}\n}`;
const missing = (name: string) => ({
  messageId: 'missing',
  data: { name: `ThingRepository.${name}` },
});

tester.run('org-id-first', rule, {
  valid: [
    repository('find(orgId: OrgId, id: string) { return [orgId, id]; }'),
    repository(
      'insert(em: EntityManager, orgId: OrgId, rows: Row[]) { return [em, orgId, rows]; }',
    ),
    repository('insert(tx: EntityManager, orgId: OrgId) { return [tx, orgId]; }'),
    repository('list(organizationId: OrgId, page = 1) { return [organizationId, page]; }'),
    repository('page(orgId: OrgId = fallback) { return orgId; }'),
    repository('constructor(private readonly ds: DataSource) {}'),
    repository('private columns(id: string) { return id; }'),
    repository('#secret(id: string) { return id; }'),
    repository('get size() { return 1; }'),
    // Not exported: a helper class of the file.
    'class Rows { read(id: string) { return id; } }',
    {
      code: repository('findByHash(hash: string) { return hash; }'),
      options: [{ exempt: { 'ThingRepository.findByHash': 'before an organization is known' } }],
    },
  ],
  invalid: [
    {
      code: repository('find(id: string) { return id; }'),
      errors: [missing('find')],
    },
    {
      code: repository('find(id: string, orgId: OrgId) { return [id, orgId]; }'),
      errors: [missing('find')],
    },
    {
      code: repository('purge() { return 0; }'),
      errors: [missing('purge')],
    },
    {
      // A string is not an OrgId, whatever the parameter is called.
      code: repository('find(orgId: string, id: string) { return [orgId, id]; }'),
      errors: [missing('find')],
    },
    {
      code: repository('find(orgId: OrgId | null) { return orgId; }'),
      errors: [missing('find')],
    },
    {
      // Only `em` (or an EntityManager) may come before the organization.
      code: repository('find(ds: DataSource, orgId: OrgId) { return [ds, orgId]; }'),
      errors: [missing('find')],
    },
    {
      code: repository('protected find(id: string) { return id; }'),
      errors: [missing('find')],
    },
    {
      code: repository('static find(id: string) { return id; }'),
      errors: [missing('find')],
    },
    {
      code: 'export default class ThingRepository { find(id: string) { return id; } }',
      errors: [missing('find')],
    },
    {
      // An exemption names one method of one class.
      code: repository('findByHash(hash: string) { return hash; }'),
      options: [{ exempt: { 'OtherRepository.findByHash': 'another class' } }],
      errors: [missing('findByHash')],
    },
  ],
});

describe('the project configuration of org-id-first', () => {
  const offending = [
    "import type { OrgId } from '../common/org-id';",
    'export class ProbeRepository {',
    '  find(orgId: OrgId, id: string) { return [orgId, id]; }',
    '  purge(before: Date) { return before; }',
    '}',
  ].join('\n');
  const exempt = 'export class EventRepository { notify(channel: string) { return channel; } }';

  /** The methods org-id-first names for each (file, text), with the project's config. */
  function lint(files: Record<string, string>): Record<string, string[]> {
    const found = projectLint(files, 'local/org-id-first');
    return Object.fromEntries(
      Object.entries(found).map(([file, messages]) => [file, messages.map((m) => m.split(' ')[0])]),
    );
  }

  it('applies to repositories and stores, not to sweepers or exemptions', () => {
    const found = lint({
      'libs/domain/src/webhooks/probe.repository.ts': offending,
      'libs/domain/src/channels/probe.store.ts': offending,
      'libs/domain/src/webhooks/probe.sweeper.ts': offending,
      'libs/domain/src/events/event.repository.ts': exempt,
      'libs/domain/src/tenancy/user.repository.ts': offending,
    });
    expect(found).toEqual({
      'libs/domain/src/webhooks/probe.repository.ts': ['ProbeRepository.purge'],
      'libs/domain/src/channels/probe.store.ts': ['ProbeRepository.purge'],
      'libs/domain/src/webhooks/probe.sweeper.ts': [],
      'libs/domain/src/events/event.repository.ts': [],
      'libs/domain/src/tenancy/user.repository.ts': [],
    });
  });
});
