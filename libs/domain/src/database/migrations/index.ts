// Every migration, in order. Append new ones at the end; never edit one that has shipped.
import { Foundation1763700000000 } from './1763700000000-foundation';
import { Contacts1763700000100 } from './1763700000100-contacts';
import { Webhooks1763700000600 } from './1763700000600-webhooks';

export const MIGRATIONS = [Foundation1763700000000, Contacts1763700000100, Webhooks1763700000600];
