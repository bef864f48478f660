import type { components } from './v1-schema';

type Schemas = components['schemas'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type Payout = Schemas['Payout'];
export type ApiEvent = Schemas['Event'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];

export const SESSION_STATUSES = ['Pending', 'Paid', 'Underpaid', 'Expired'] as const;
export const PAYOUT_STATUSES = [
  'Pending',
  'Processing',
  'Completed',
  'Failed',
  'Rejected',
] as const;
