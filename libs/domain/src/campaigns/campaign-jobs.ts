// Job names and payloads of the campaigns queue. Payloads carry ids only.
export const CAMPAIGN_JOBS = {
  /** Start (or resume) the fan-out of one campaign now instead of at the next poll. */
  kick: 'campaign.kick',
} as const;

export interface CampaignKickJob {
  campaignId: string;
  organizationId: string;
}
