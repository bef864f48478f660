import { ApiError, consoleRequest, rememberCsrfToken } from './http';

/* The operator API (/ops/api/*, libs/console/src/ops, docs/operators.md), typed by hand. */

export interface OpsSession {
  operator: { id: string; email: string };
  role: 'admin' | 'support';
  csrf_token: string;
  livemode: boolean;
  view_as: {
    merchant_id: string;
    merchant_name: string | null;
    reason: string;
    expires_at: string;
  } | null;
}

export interface PayoutReview {
  id: string;
  merchant: { id: string; name: string };
  amount: string;
  fee: string;
  net_amount: string;
  currency: string;
  network: string;
  destination: string;
  review_reasons: string[];
  sub_merchant_code: string | null;
  description: string | null;
  created_at: string;
}

export interface OpsMerchantSummary {
  id: string;
  name: string;
  kind: 'direct' | 'psp';
  created_at: string;
  keys: { active: number; revoked: number };
}

export interface OpsMerchantKey {
  id: string;
  hint: string;
  name: string | null;
  scopes: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface OpsMerchant {
  id: string;
  name: string;
  kind: 'direct' | 'psp';
  created_at: string;
  keys: OpsMerchantKey[];
}

/** The operator's session, or null when no operator is signed in. */
export async function fetchOpsSession(): Promise<OpsSession | null> {
  try {
    return await consoleRequest<OpsSession>('GET', '/ops/api/session');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      rememberCsrfToken(null);
      return null;
    }
    throw error;
  }
}

const id = encodeURIComponent;

export const opsApi = {
  payoutReviews: () => consoleRequest<{ data: PayoutReview[] }>('GET', '/ops/api/payout-reviews'),
  approve: (payoutId: string) =>
    consoleRequest<unknown>('POST', `/ops/api/payouts/${id(payoutId)}/approve`),
  reject: (payoutId: string, reason: string) =>
    consoleRequest<unknown>('POST', `/ops/api/payouts/${id(payoutId)}/reject`, { reason }),
  merchants: (startingAfter?: string) =>
    consoleRequest<{ data: OpsMerchantSummary[]; has_more: boolean }>(
      'GET',
      `/ops/api/merchants?limit=100${startingAfter ? `&starting_after=${id(startingAfter)}` : ''}`,
    ),
  merchant: (merchantId: string) =>
    consoleRequest<OpsMerchant>('GET', `/ops/api/merchants/${id(merchantId)}`),
  startViewAs: (merchantId: string, reason: string, minutes: number) =>
    consoleRequest<{ id: string; merchant_id: string; reason: string; expires_at: string }>(
      'POST',
      '/ops/api/view-as',
      { merchant_id: merchantId, reason, minutes },
    ),
  endViewAs: () => consoleRequest<{ ended: boolean }>('POST', '/ops/api/view-as/end'),
  revokeKey: (merchantId: string, keyId: string) =>
    consoleRequest<{ id: string; revoked: true }>(
      'POST',
      `/ops/api/merchants/${id(merchantId)}/keys/${id(keyId)}/revoke`,
    ),
};
