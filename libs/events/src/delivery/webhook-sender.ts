import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, AppConfig, injectTraceHeaders } from '@app/common';
import { toEventDto } from '../events/event.mapper';
import { WebhookSecretBox } from '../signing/webhook-secret-box';
import { signWebhook } from '../signing/webhook-signature';
import { AttemptRecord, ClaimedDelivery } from './delivery-queue.repository';
import { WebhookHttpClient, WebhookResponse } from './webhook-http-client';

export interface SentAttempt extends AttemptRecord {
  retryAfterSeconds: number | null;
}

/** Why a response that is not 2xx counts as a failure, in the words a merchant needs. */
function failureOf(response: WebhookResponse): string | null {
  if (response.error) return response.error;
  const status = response.statusCode!;
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return 'HTTP 410 Gone: the endpoint was disabled';
  return `HTTP ${status}`;
}

/** Signs and POSTs one event to one endpoint; never throws. */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly client: WebhookHttpClient;
  private readonly timeoutMs: number;
  private readonly secrets: WebhookSecretBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = new WebhookHttpClient({ allowPrivate: config.webhooks.allowPrivateUrls });
    this.timeoutMs = config.webhooks.timeoutMs;
    this.secrets = new WebhookSecretBox(config.webhooks.secretsKey);
  }

  async send(claim: ClaimedDelivery): Promise<SentAttempt> {
    const body = JSON.stringify(toEventDto(claim.event));
    const attemptedAt = new Date();
    const headers = signWebhook({
      messageId: claim.event.id,
      timestamp: Math.floor(attemptedAt.getTime() / 1000),
      body,
      secrets: this.secretsOf(claim, attemptedAt),
    });
    const response = await this.client.post({
      url: claim.url,
      body,
      // `traceparent` of the delivery's span when tracing is on; nothing added when it is off.
      headers: injectTraceHeaders({ ...headers }),
      timeoutMs: this.timeoutMs,
    });
    const error = failureOf(response);
    return {
      attemptedAt,
      statusCode: response.statusCode,
      latencyMs: response.latencyMs,
      responseExcerpt: response.responseExcerpt,
      error,
      succeeded: error === null,
      retryAfterSeconds: response.retryAfterSeconds,
    };
  }

  onModuleDestroy(): void {
    this.client.close();
  }

  /**
   * During a rotation's grace period both secrets sign, so either verifies. Opened here, just
   * before signing: they are sealed in the database. A secret that does not open (another key)
   * throws: nothing unsigned is ever sent, and the delivery waits for its lease to run out.
   */
  private secretsOf(claim: ClaimedDelivery, now: Date): string[] {
    const sealed = [claim.secret];
    const expires = claim.previous_secret_expires_at;
    if (claim.previous_secret && expires && new Date(expires).getTime() > now.getTime()) {
      sealed.push(claim.previous_secret);
    }
    return sealed.map((value) => this.secrets.open(value, claim.endpoint_id));
  }
}
