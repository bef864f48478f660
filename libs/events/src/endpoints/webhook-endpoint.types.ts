import { EventType } from '../event-types';

/** Why an endpoint stopped receiving events. */
export const DISABLED_REASONS = ['disabled_by_merchant', 'endpoint_gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** A row of webhook_endpoints, with its sub-merchant's code joined in. */
export interface WebhookEndpointRecord {
  id: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  sub_merchant_code: string | null;
  livemode: boolean;
  url: string;
  description: string | null;
  event_types: EventType[] | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  /** Sealed (WebhookSecretBox); never shown. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  last_success_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
