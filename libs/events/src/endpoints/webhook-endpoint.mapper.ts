import { WebhookEndpointDto, WebhookEndpointWithSecretDto } from './dto/webhook-endpoint.dto';
import { WebhookEndpointRecord } from './webhook-endpoint.types';

function optionalIso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** The public endpoint; never its secrets (see toEndpointWithSecret). */
export function toWebhookEndpointDto(row: WebhookEndpointRecord): WebhookEndpointDto {
  const rotationEnds = row.previous_secret_expires_at;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: optionalIso(row.disabled_at),
    failing_since: optionalIso(row.failing_since),
    last_success_at: optionalIso(row.last_success_at),
    previous_secret_expires_at:
      rotationEnds && new Date(rotationEnds).getTime() > Date.now()
        ? optionalIso(rotationEnds)
        : null,
    sub_merchant_code: row.sub_merchant_code,
    livemode: row.livemode,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/**
 * Only the responses of creation and rotation show the secret: the one just made, since the row
 * holds it sealed (WebhookSecretBox).
 */
export function toEndpointWithSecret(
  row: WebhookEndpointRecord,
  secret: string,
): WebhookEndpointWithSecretDto {
  return { ...toWebhookEndpointDto(row), secret };
}
