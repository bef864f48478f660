import { consoleRequest } from './http';

/** The reset page's and the Team page's calls (libs/console/src/password-reset). */
export const passwordResetApi = {
  lookup: (token: string) =>
    consoleRequest<{ email: string; two_factor_required: boolean }>(
      'POST',
      '/console/api/sign-in/password-reset/lookup',
      { token },
    ),
  complete: (token: string, password: string, code: string | null) =>
    consoleRequest<{ password_reset: true }>('POST', '/console/api/sign-in/password-reset', {
      token,
      password,
      ...(code ? { code } : {}),
    }),
  issueForMember: (userId: string) =>
    consoleRequest<{ reset_url: string; expires_at: string }>(
      'POST',
      `/console/api/team/members/${encodeURIComponent(userId)}/password-reset`,
    ),
};
