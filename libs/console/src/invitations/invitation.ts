import { ConsoleRole } from '@app/auth';
import { ConsoleRealm } from '../users/console-user';

/** An invitation is good for a week, once. */
export const INVITATION_VALID_DAYS = 7;

export interface PendingInvitation {
  id: string;
  realm: ConsoleRealm;
  merchantId: string | null;
  merchantName: string | null;
  email: string;
  role: ConsoleRole | null;
  expiresAt: Date;
}

export interface IssuedInvitation {
  id: string;
  /** Carries the token in its fragment (`#token=`), which browsers never send to the server. */
  invitationUrl: string;
  expiresAt: Date;
}

/** What the invitation page shows before the invitee sets a password. */
export function invitationView(invitation: PendingInvitation) {
  return {
    email: invitation.email,
    realm: invitation.realm,
    merchant_name: invitation.merchantName,
    role: invitation.role,
    expires_at: invitation.expiresAt.toISOString(),
  };
}
