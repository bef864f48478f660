import { EntityManager } from 'typeorm';
import { AppConfig } from '@app/common';
import { randomToken, sha256 } from '../crypto/tokens';
import { ConsoleRealm } from '../users/console-user';
import { PasswordResetsRepository } from './password-resets.repository';

export interface IssuedPasswordReset {
  id: string;
  /** Shown once to whoever issued it; the token is in the fragment, never sent to a server. */
  resetUrl: string;
  expiresAt: Date;
}

/**
 * A reset link: a 256-bit token of which the table keeps the SHA-256, in the fragment of the
 * page's URL (as invitations: never in a request line, so never in an access log).
 */
export async function issuePasswordReset(
  manager: EntityManager,
  config: Pick<AppConfig, 'publicUrl'>,
  input: { userId: string; realm: ConsoleRealm; issuedByUserId: string | null },
): Promise<IssuedPasswordReset> {
  const token = randomToken();
  const { id, expiresAt } = await new PasswordResetsRepository().create(manager, {
    userId: input.userId,
    tokenHash: sha256(token),
    issuedByUserId: input.issuedByUserId,
  });
  const area = input.realm === 'operator' ? 'ops' : 'console';
  return { id, resetUrl: `${config.publicUrl}/${area}/reset-password#token=${token}`, expiresAt };
}
