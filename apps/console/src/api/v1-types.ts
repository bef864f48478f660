import type { components } from './v1-schema';

type Schemas = components['schemas'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type Payout = Schemas['Payout'];
export type Refund = Schemas['Refund'];
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
export const REFUND_STATUSES = [
  'requires_destination',
  'Pending',
  'Processing',
  'Completed',
  'Failed',
  'Canceled',
] as const;
/** A refund not signed yet: POST /v1/refunds/{id}/cancel takes it back. */
export const CANCELABLE_REFUND_STATUSES: readonly string[] = ['requires_destination', 'Pending'];
// The API's own list (libs/events), as the payout form's networks come from libs/chains: a new
// event type reaches the Events filter and the endpoint form without a second edit.
export { EVENT_TYPES } from '../../../../libs/events/src/event-types';
