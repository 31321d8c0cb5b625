// Every entity the data source maps. Each area appends its own.
import { Campaign, CampaignRecipient } from '../campaigns/campaign.entity';
import { Conversion } from '../campaigns/conversion.entity';
import { ContactList } from '../contacts/contact-list.entity';
import { ContactSegment } from '../segments/contact-segment.entity';
import { ApiKey } from '../tenancy/api-key.entity';
import { Organization } from '../tenancy/organization.entity';
import { AccessToken, Membership, User } from '../tenancy/user.entity';

export const ENTITIES = [
  Organization,
  ApiKey,
  User,
  Membership,
  AccessToken,
  ContactList,
  ContactSegment,
  Campaign,
  CampaignRecipient,
  Conversion,
];
