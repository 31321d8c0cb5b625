// Every migration, in order. Append new ones at the end; never edit one that has shipped.
import { Foundation1763700000000 } from './1763700000000-foundation';
import { Contacts1763700000100 } from './1763700000100-contacts';
import { ContactsIndexes1763700000200 } from './1763700000200-contacts-indexes';
import { Campaigns1763700000700 } from './1763700000700-campaigns';
import { ContactImports1763700000500 } from './1763700000500-contact-imports';

export const MIGRATIONS = [
  Foundation1763700000000,
  Contacts1763700000100,
  ContactsIndexes1763700000200,
  Campaigns1763700000700,
  ContactImports1763700000500,
];
