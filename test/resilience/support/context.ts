import type { Pool } from 'pg';
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
}
export interface Reporter {
  record(row: SummaryRow): void;
}
export interface ResilienceContext {
  apiUrl: string;
  relay: { host: string; port: number };
  sink: {
    port: number;
    received(): number;
    messages(): Array<{ messageId?: string; to: string[]; raw: string }>;
  };
  receiver: { url: string; received(): number };
  db: Pool;
  createOrg(name: string): Promise<OrgFixture>;
  logs(): string[];
}
