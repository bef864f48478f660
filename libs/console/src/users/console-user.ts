import { ConsoleRole } from '@app/auth';

export type ConsoleRealm = 'merchant' | 'operator';

export interface ConsoleUser {
  id: string;
  realm: ConsoleRealm;
  email: string;
  passwordHash: string | null;
  totpEnabled: boolean;
}

export interface ConsoleMembership {
  merchantId: string;
  merchantName: string;
  merchantKind: 'direct' | 'psp';
  role: ConsoleRole;
}

/** E-mail addresses are compared and stored lowercased (the table's CHECK insists). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
