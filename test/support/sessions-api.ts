import type { Schema } from '@stablecoin-payments/sdk';
import type { TestApi, TestMerchant } from './test-app';

/**
 * Checkout sessions through the API, as suites create and read them (immich's
 * `server/test/api/*-api.ts`, twenty's `test/integration/utils/*.util.ts`): one place for the
 * path, the defaults and the types, so a suite states only what its test is about.
 */

export const SESSIONS = '/v1/checkout/sessions';

/** A session as the API answers it (the OpenAPI schema the SDK is generated from). */
export type CheckoutSession = Schema<'CheckoutSession'>;

/**
 * What a suite may override. Loosely typed where tests send what the API refuses
 * (an unknown network, a malformed amount) to assert the refusal.
 */
export type SessionInput = Omit<
  Partial<Schema<'CreateCheckoutSessionRequest'>>,
  'currency' | 'network'
> & {
  currency?: string;
  network?: string;
  [field: string]: unknown;
};

/** 10 USD paid in USDT on ETHEREUM: the session most tests need, unless they say otherwise. */
export const SESSION_DEFAULTS = {
  pricing_amount: '10',
  pricing_currency: 'USD',
  currency: 'USDT',
  network: 'ETHEREUM',
} as const;

type SessionsClient = Pick<TestApi, 'get' | 'post'>;

/** POST /v1/checkout/sessions with the defaults and the overrides; expects 201. */
export async function createSession(
  api: SessionsClient,
  merchant: TestMerchant,
  overrides: SessionInput = {},
  headers: Record<string, string> = {},
): Promise<CheckoutSession> {
  const { body } = await api
    .post(SESSIONS, merchant, { ...SESSION_DEFAULTS, ...overrides }, headers)
    .expect(201);
  return body as CheckoutSession;
}

/** GET /v1/checkout/sessions/:id; expects 200. */
export async function readSession(
  api: SessionsClient,
  merchant: TestMerchant,
  id: string,
): Promise<CheckoutSession> {
  const { body } = await api.get(`${SESSIONS}/${id}`, merchant).expect(200);
  return body as CheckoutSession;
}

/** GET /v1/checkout/sessions with a query (arrays repeat the parameter); expects 200. */
export async function listSessions(
  api: SessionsClient,
  merchant: TestMerchant,
  query: Record<string, string | number | boolean | string[] | undefined> = {},
): Promise<CheckoutSession[]> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
  }
  const suffix = search.size > 0 ? `?${search.toString()}` : '';
  const { body } = await api.get(`${SESSIONS}${suffix}`, merchant).expect(200);
  return body as CheckoutSession[];
}
