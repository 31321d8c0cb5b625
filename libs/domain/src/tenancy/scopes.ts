// The scopes of the API and what each role holds.
import type { Role } from './user.entity';

export const SCOPES = [
  'contacts:read',
  'contacts:write',
  'messages:read',
  'messages:send',
  'analytics:read',
  'analytics:write',
  'webhooks:read',
  'webhooks:write',
  'campaigns:read',
  'campaigns:write',
  'domains:read',
  'domains:write',
  'channels:read',
  'channels:write',
  'keys:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Owner and admin hold every scope; member holds the `:read` scopes and `contacts:write` (§3). */
export function scopesForRole(role: Role): Scope[] {
  if (role === 'owner' || role === 'admin') return [...SCOPES];
  return SCOPES.filter((s) => s.endsWith(':read') || s === 'contacts:write');
}
