import type { Pool } from 'pg';

// Interface between the resilience runner (harness, faults, load) and the modules it calls
// (fuzzer, tenancy sweep, SMTP command fuzzing). Fields may be added, never removed or renamed.

export interface OrgFixture {
  id: string;
  name: string;
  apiKey: string /* full-scope key, all scopes */;
}

export interface SummaryRow {
  section: 'fault' | 'load' | 'fuzz' | 'tenancy' | 'smtp-fuzz';
  name: string;
  requests: number;
  errors: number;
  lost: number;
  passed: boolean;
  notes?: string;
  /** The check could not run here (e.g. a server the suite does not own); not a failure. */
  skipped?: boolean;
}

export interface Reporter {
  record(row: SummaryRow): void;
}

export interface ResilienceContext {
  apiUrl: string; // http://127.0.0.1:<port> of the child api
  relay: { host: string; port: number }; // child smtp-relay (plain, AUTH allowed on loopback)
  inbound: { host: string; port: number }; // the relay's inbound port (bounces, complaints; no AUTH)
  sink: {
    port: number;
    received(): number;
    messages(): Array<{ messageId?: string; to: string[]; raw: string }>;
  }; // real smtp-server sink the worker delivers to
  receiver: { url: string; received(): number }; // real HTTP webhook receiver on loopback
  db: Pool; // direct SQL to the suite's database for assertions
  createOrg(name: string): Promise<OrgFixture>;
  logs(): string[]; // every captured stdout/stderr line of api, worker, relay
  /** The platform's ENCRYPTION_KEY (base64): the inbound fuzz signs genuine tokens with it. */
  encryptionKey?: string;
}
