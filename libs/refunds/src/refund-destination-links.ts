import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AuthenticatedMerchant } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { HOSTED_PAGE_PATH } from '@app/checkout';

/** The fragment parameters of a refund's link: `#refund=<refund id>&secret=<secret>`. */
export const REFUND_LINK_PARAMETER = 'refund';
export const REFUND_SECRET_PARAMETER = 'secret';

/**
 * The per-refund secret of the hosted refund form (review finding 4): the session's link alone no
 * longer lets anyone choose where a refund goes. The secret is an HMAC-SHA256 of the refund id
 * under a key derived (HKDF) from WEBHOOK_SECRETS_KEY, which production requires and refuses the
 * public development key for: 256 bits nobody without the key can derive, stored nowhere (so
 * never in clear at rest), the same every time the merchant reads the refund. Rotating
 * WEBHOOK_SECRETS_KEY changes every link of refunds still waiting for an address.
 *
 * The link carries it in the URL fragment, which browsers never send to a server (no access
 * log, no Referer); the page's script posts it in the body of its requests.
 */
@Injectable()
export class RefundDestinationLinks {
  private readonly key: Buffer;
  private readonly pageBase: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = Buffer.from(
      hkdfSync(
        'sha256',
        config.webhooks.secretsKey,
        Buffer.alloc(0),
        'refund destination form v1',
        32,
      ),
    );
    this.pageBase = `${config.publicUrl}${HOSTED_PAGE_PATH}`;
  }

  secretOf(refundId: string): string {
    return createHmac('sha256', this.key).update(refundId).digest('base64url');
  }

  /** Whether `given` is the refund's secret, compared in constant time. */
  matches(refundId: string, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.secretOf(refundId));
    const actual = Buffer.from(given);
    // Same length first (timingSafeEqual throws otherwise); the length is no secret.
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /**
   * The customer's link to the refund form: the session's hosted page with the refund and its
   * secret in the fragment. Null unless the refund waits for an address on that page.
   */
  urlOf(refund: { id: string; session_id: string | null; status: string }): string | null {
    if (refund.status !== 'requires_destination' || refund.session_id === null) return null;
    const fragment = new URLSearchParams({
      [REFUND_LINK_PARAMETER]: refund.id,
      [REFUND_SECRET_PARAMETER]: this.secretOf(refund.id),
    });
    return `${this.pageBase}/${refund.session_id}#${fragment.toString()}`;
  }
}

/**
 * Whether a caller may read a refund's customer link (review H1). The link chooses where the
 * refund goes, so it is served only to callers who may move refunds (`refunds:write`, which
 * creating the refund took), never to a read-only one (a `refunds:read` key, a console viewer or
 * support member) nor to an operator viewing as the merchant, whatever the view's role. For
 * everyone else `destination_url` is null.
 */
export function mayReadDestinationLink(caller: AuthenticatedMerchant): boolean {
  if (caller.actor.type === 'console_user' && caller.actor.operatorId !== undefined) return false;
  return caller.permissions.has('refunds:write');
}
