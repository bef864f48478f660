import type { ApiScope, ConsoleRole, Permission } from '../../../../libs/auth/src/permissions';
import { consoleRequest, ApiError, rememberCsrfToken } from './http';

/*
 * The console's own API (/console/api/*), typed by hand: it is not part of the public OpenAPI
 * document (libs/console).
 */

export interface SessionMembership {
  merchant_id: string;
  merchant_name: string;
  role: ConsoleRole;
}

export interface ConsoleSession {
  user: { id: string; email: string };
  realm: 'merchant' | 'operator';
  merchant: { id: string; name: string; kind: 'direct' | 'psp' } | null;
  role: ConsoleRole | null;
  permissions: Permission[];
  memberships: SessionMembership[];
  csrf_token: string;
  livemode: boolean;
  /** An operator viewing as this merchant, read-only (docs/operators.md); null otherwise. */
  view_as?: { operator_email: string; reason: string; expires_at: string } | null;
}

/** A password accepted: the second factor next, or its enrolment for an account without one. */
export interface SignInResult {
  two_factor_required?: boolean;
  two_factor_enrolment?: TwoFactorEnrolment;
}

export interface Invitation {
  email: string;
  realm: 'merchant' | 'operator';
  merchant_name: string | null;
  role: ConsoleRole | null;
  expires_at: string;
  /** The address has an account already: accept by signing in to it (acceptWithAccount). */
  account_exists?: boolean;
}

export interface TwoFactorEnrolment {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

export interface ApiKey {
  id: string;
  name: string | null;
  scopes: ApiScope[] | null;
  key_hint: string;
  livemode: boolean;
  status: 'active' | 'expired' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  rolled_from_key_id: string | null;
}

/** The one answer that carries the secret itself. */
export interface CreatedApiKey {
  id: string;
  name: string | null;
  scopes: ApiScope[] | null;
  key_hint?: string;
  api_key: string;
  livemode: boolean;
  created_at: string;
  expires_at: string | null;
}

export type RollExpiry = 'now' | '1h' | '24h' | '7d';

export interface TeamMember {
  user_id: string;
  email: string;
  role: ConsoleRole;
  two_factor_enabled: boolean;
  joined_at: string;
}

export interface PendingInvitation {
  id: string;
  email: string;
  role: ConsoleRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface Team {
  members: TeamMember[];
  invitations: PendingInvitation[];
}

export interface CreatedInvitation {
  invitation_url: string;
  expires_at: string;
}

/** The session, or null when nobody is (fully) signed in. */
export async function fetchSession(): Promise<ConsoleSession | null> {
  try {
    return await consoleRequest<ConsoleSession>('GET', '/console/api/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      rememberCsrfToken(null);
      return null;
    }
    throw error;
  }
}

export const consoleApi = {
  signIn: (email: string, password: string, realm: 'merchant' | 'operator') =>
    consoleRequest<SignInResult>('POST', '/console/api/sign-in', { email, password, realm }),
  verifyTwoFactor: (code: string) =>
    consoleRequest<unknown>('POST', '/console/api/sign-in/two-factor', { code }),
  signOut: () => consoleRequest<unknown>('POST', '/console/api/sign-out'),
  switchMerchant: (merchantId: string) =>
    consoleRequest<ConsoleSession>('POST', '/console/api/session/merchant', {
      merchant_id: merchantId,
    }),

  // POST, not GET /invitations/:token: the token stays out of request lines and access logs.
  lookupInvitation: (token: string) =>
    consoleRequest<Invitation>('POST', '/console/api/invitations/lookup', { token }),
  acceptInvitation: (token: string, password: string) =>
    consoleRequest<{ two_factor_enrolment: TwoFactorEnrolment }>(
      'POST',
      '/console/api/invitations/accept',
      { token, password },
    ),
  acceptWithAccount: (token: string, password: string, code: string) =>
    consoleRequest<{ signed_in: true; merchant_id: string }>(
      'POST',
      '/console/api/invitations/accept-with-account',
      { token, password, code },
    ),
  enrolTwoFactor: (code: string) =>
    consoleRequest<{ recovery_codes: string[] }>('POST', '/console/api/two-factor/enrol', { code }),

  apiKeys: () => consoleRequest<ApiKey[]>('GET', '/console/api/api-keys'),
  createApiKey: (input: { name?: string; scopes?: ApiScope[]; two_factor_code?: string }) =>
    consoleRequest<CreatedApiKey>('POST', '/console/api/api-keys', input),
  rollApiKey: (id: string, input: { expires_in: RollExpiry; two_factor_code?: string }) =>
    consoleRequest<CreatedApiKey>(
      'POST',
      `/console/api/api-keys/${encodeURIComponent(id)}/roll`,
      input,
    ),
  revokeApiKey: (id: string) =>
    consoleRequest<unknown>('POST', `/console/api/api-keys/${encodeURIComponent(id)}/revoke`),

  team: () => consoleRequest<Team>('GET', '/console/api/team'),
  invite: (email: string, role: ConsoleRole) =>
    consoleRequest<CreatedInvitation>('POST', '/console/api/team/invitations', { email, role }),
};
