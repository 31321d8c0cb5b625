// The organization id as a type of its own: a repository method that reads or writes one
// organization's rows takes `orgId: OrgId` first, so a value that never passed through
// authentication (a path parameter, a row id, a job field not yet parsed) cannot stand in for it.

declare const orgIdBrand: unique symbol;

/** An organization's id, known to come from an authenticated caller or a row we wrote. */
export type OrgId = string & { readonly [orgIdBrand]: true };

/**
 * Marks a string as an organization id. Called where the id enters from a trusted source only:
 * the authentication guard, a queue job's parser, a row a sweeper read, the operator's command
 * line (checked against the organizations table before use), a test's session.
 */
export function asOrgId(value: string): OrgId {
  return value as OrgId;
}
