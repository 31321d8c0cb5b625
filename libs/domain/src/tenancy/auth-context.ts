// Who is calling, for which organization, with which scopes.
import type { OrgId } from '../common/org-id';
import type { Scope } from './scopes';

/** Who is calling, for which organization, with which scopes. Built once per request or SMTP session. */
export interface AuthContext {
  organizationId: OrgId;
  scopes: ReadonlySet<Scope>;
  principal:
    | { type: 'api_key'; keyId: string; rateLimitPerMinute: number; rateLimitPerDay: number | null }
    | { type: 'user'; userId: string; role: string };
}
