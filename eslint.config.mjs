import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import orgIdFirst from './eslint-rules/org-id-first.js';
import { readdirSync } from 'node:fs';

// --- One owner per table -------------------------------------------------------------------------
// Each folder of libs/domain/src owns its tables: another folder may call its services, never its
// repositories or stores (one writer per table, no SQL text between areas).
const DOMAIN = 'libs/domain/src';
const domainFolders = readdirSync(DOMAIN, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const ownTablesOnly = domainFolders.map((folder) => ({
  files: [`${DOMAIN}/${folder}/**/*.ts`],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: domainFolders
              .filter((other) => other !== folder)
              .flatMap((other) => [`**/${other}/**/*.repository`, `**/${other}/**/*.store`]),
            message: 'another area owns these tables: call its service instead',
          },
        ],
      },
    ],
  },
}));
/** The apps are edges: they call the domain's services, never its repositories. */
const appsCallServices = {
  files: ['apps/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['**/*.repository', '**/*.store'],
            message: 'the apps call the domain through its services',
          },
        ],
      },
    ],
  },
};

// --- Tenancy in the types (eslint-rules/org-id-first.js) ----------------------------------------
// Every method of a repository (or store) class takes `orgId: OrgId` first; sweeps across
// organizations live in `*Sweeper` classes of `*.sweeper.ts` files, which the rule leaves out.

/** Repositories of tables that hold no organization's rows, with why. */
const ORG_ID_EXEMPT_FILES = {
  'libs/domain/src/tenancy/user.repository.ts':
    'users and access tokens belong to no single organization (memberships tie a user to several)',
  'libs/domain/src/tenancy/login-ip.repository.ts':
    'login_ips rows are keyed by user, and a user belongs to no single organization',
  'libs/domain/src/common/periodic-run.repository.ts':
    'periodic_runs is a system table: one row per cluster-wide periodic task, of no organization',
};

/** Methods that run before an organization is known, with why. */
const ORG_ID_EXEMPT_METHODS = {
  'OrganizationRepository.insert': 'creates the organization: its id does not exist before',
  'ApiKeyRepository.findByHash':
    'authentication reads the presented key, which names its organization',
  'ApiKeyRepository.organizationOf':
    "the operator's revoke by id (mp-admin revoke-key) names no organization",
  'ChannelProviderRepository.organizationOf':
    "a provider callback's URL carries only the account id; the account's credentials verify it",
  'EventRepository.notify': 'a NOTIFY of committed delivery ids: it reads and writes no row',
  'UnsubscribeRepository.resolve':
    "a verified unsubscribe token names a job id; the job's row names the organization",
  'SendingDomainRepository.isVerifiedReturnDomain':
    'inbound mail names a host: whether any organization verified it decides before one is known',
  'ImportsRepository.beginBatch':
    "the settings of an import batch's transaction (SET LOCAL): it reads and writes no row",
  'MessageAttemptsRepository.findReferenced':
    'a report mailed back names its message by a signed token, before any organization is known',
  'InboundMessageRepository.store':
    'the inbound port commits received mail before processing matches it to any organization',
  'InboundMessageRepository.operatorMail':
    "mail to postmaster@ and abuse@ is the operator's, of no organization",
};

/** Written by scripts/dashboard-types.js from docs/openapi.json. */
const GENERATED_DASHBOARD_FILES = [
  'apps/dashboard/src/api/schema.d.ts',
  'apps/dashboard/src/api/schema-values.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['libs/domain/src/**/*.repository.ts', 'libs/domain/src/**/*.store.ts'],
    ignores: ['**/*.sweeper.ts', ...Object.keys(ORG_ID_EXEMPT_FILES)],
    plugins: { local: { rules: { 'org-id-first': orgIdFirst } } },
    rules: { 'local/org-id-first': ['error', { exempt: ORG_ID_EXEMPT_METHODS }] },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: [
      'scripts/**/*.js',
      'eslint-rules/**/*.js',
      'test/**/*.js',
      'test/**/*.mjs',
      'bench/**/*.js',
      'libs/**/*.js',
      'jest.config.js',
    ],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
  {
    // The dashboard runs in the browser (§15); its generated API types and values are not linted.
    files: ['apps/dashboard/**/*.{ts,tsx}'],
    ignores: GENERATED_DASHBOARD_FILES,
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  { ignores: GENERATED_DASHBOARD_FILES },
  ...ownTablesOnly,
  appsCallServices,
);
