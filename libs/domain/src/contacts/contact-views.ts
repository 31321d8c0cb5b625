// Contact views: what the contacts services return (contact-payload.ts spells them as the contract).
import type { ContactList } from './contact-list.entity';
import type { ContactListMembership } from './contact-list-membership.entity';
import type { Contact } from './contact.entity';
import type {
  ContactEmail,
  ContactImessage,
  ContactPush,
  ContactSms,
  ContactTelegram,
  ContactWhatsapp,
} from './contact-channels.entity';
import type { ContactTag } from './contact-tag.entity';
import type { Listed } from '../database/entity-rows';

/** A ContactView, or a contact of a listed page (timestamps possibly already text). */
export interface ListedContactView {
  contact: Listed<Contact>;
  /** Tag names; empty when tags were not loaded. */
  tags: string[];
  emails?: Listed<ContactEmail>[];
  smsNumbers?: Listed<ContactSms>[];
  whatsappAccounts?: Listed<ContactWhatsapp>[];
  telegramAccounts?: Listed<ContactTelegram>[];
  imessageAccounts?: Listed<ContactImessage>[];
  pushNotifications?: Listed<ContactPush>[];
  tagRecords?: ContactTag[];
  listMemberships?: MembershipView[];
}

export interface ContactView extends ListedContactView {
  contact: Contact;
  emails?: ContactEmail[];
  smsNumbers?: ContactSms[];
  whatsappAccounts?: ContactWhatsapp[];
  telegramAccounts?: ContactTelegram[];
  imessageAccounts?: ContactImessage[];
  pushNotifications?: ContactPush[];
}

export interface ListView {
  list: ContactList;
  /** Tag names; empty when tags were not loaded. */
  tags: string[];
}

export interface MembershipView {
  membership: ContactListMembership;
  contact?: ContactView;
  contactList?: ListView;
}
