// The contacts a segment picks, as a typed value: the segments repository alone renders it as SQL.
import type { RuleGroup } from './segment-rules';

/** A static segment's members, or the contacts a rule tree selects when evaluated at `now`. */
export type ContactSelection =
  { kind: 'members'; segmentId: string } | { kind: 'rules'; rules: RuleGroup; now: Date };

/**
 * Where a walk over a selection's contacts stands: after the contact `id`. Members are walked in
 * contact id order; rules in `created_at DESC, id DESC` order, `createdAt` being that contact's
 * timestamp as PostgreSQL prints it (microseconds and offset kept, so the key is exact).
 */
export interface WalkKey {
  id: string;
  createdAt: string | null;
}

/** One batch of a walk, and the key to continue after it (null once the walk is over). */
export interface WalkPage {
  ids: string[];
  next: WalkKey | null;
}
