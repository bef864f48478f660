/**
 * Every event type, in the order a merchant meets them. Published names are never renamed or
 * removed (integrations switch on them); new ones are only added.
 */
export const EVENT_TYPES = [
  'checkout.session.payment_detected',
  'checkout.session.payment_confirmed',
  'checkout.session.transaction_reverted',
  'checkout.session.paid',
  'checkout.session.underpaid',
  'checkout.session.expired',
  'checkout.session.pending',
  'payout.created',
  'payout.processing',
  'payout.completed',
  'payout.failed',
  'payout.rejected',
  'payout_batch.created',
  'payout_batch.completed',
  'refund.created',
  'refund.pending',
  'refund.processing',
  'refund.completed',
  'refund.failed',
  'refund.canceled',
  'webhook_endpoint.disabled',
  // Sent only by POST /v1/webhook-endpoints/{id}/test, only to that endpoint.
  'webhook_endpoint.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What `data.object` of an event is. */
export const EVENT_OBJECT_TYPES = [
  'checkout.session',
  'payout',
  'payout_batch',
  'refund',
  'webhook_endpoint',
] as const;
export type EventObjectType = (typeof EVENT_OBJECT_TYPES)[number];
