// Queue names and job payload types. Payloads carry ids only, never personal data or secrets.
export const QUEUES = {
  imports: 'imports',
  email: 'email',
  webhooks: 'webhooks',
  campaigns: 'campaigns',
  maintenance: 'maintenance',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
