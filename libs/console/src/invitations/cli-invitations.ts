import { DataSource } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { AppConfig } from '@app/common';
import { recordAudit } from '../audit/audit-log';
import { OperatorRole } from '../sessions/console-session';
import { ConsoleRealm, normalizeEmail } from '../users/console-user';
import { InvitationIssuer } from './invitation-issuer';
import { InvitationsRepository } from './invitations.repository';

export interface CliInvitation {
  invitation_url: string;
  expires_at: string;
}

export class CliInvitationError extends Error {}

/**
 * `console:invite` and `ops:invite`: the first member of a merchant's team (or an operator) has
 * nobody to invite them but the service's operators. Audited with actor_type 'cli'. Built
 * without the console module, which the CLI process does not load.
 */
export async function inviteFromCli(
  dataSource: DataSource,
  config: Pick<AppConfig, 'publicUrl'>,
  input: {
    realm: ConsoleRealm;
    merchantId: string | null;
    email: string;
    role: ConsoleRole | null;
    /** An operator's role (docs/operators.md); support when not given. */
    operatorRole?: OperatorRole;
  },
): Promise<CliInvitation> {
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) {
    throw new CliInvitationError('--email must be an e-mail address.');
  }
  const issuer = new InvitationIssuer(new InvitationsRepository(), config);
  return dataSource.transaction(async (manager) => {
    if (input.merchantId !== null) {
      const found: unknown[] = await manager.query(`SELECT 1 FROM merchants WHERE id = $1`, [
        input.merchantId,
      ]);
      if (!found.length) throw new CliInvitationError(`No merchant ${input.merchantId}.`);
    }
    const { operatorRole: requestedOperatorRole, ...request } = input;
    const invitation = await issuer.issue(manager, { ...request, email, invitedByUserId: null });
    const operatorRole = input.realm === 'operator' ? (requestedOperatorRole ?? 'support') : null;
    if (operatorRole) {
      // Carried by the invitation until it is accepted (invitation-acceptance.ts copies it).
      await manager.query(`UPDATE console_invitations SET operator_role = $2 WHERE id = $1`, [
        invitation.id,
        operatorRole,
      ]);
    }
    await recordAudit(manager, {
      merchantId: input.merchantId,
      actorType: 'cli',
      actorId: null,
      action: 'invitation.created',
      targetType: 'invitation',
      targetId: invitation.id,
      details: {
        email,
        realm: input.realm,
        role: input.role,
        ...(operatorRole ? { operator_role: operatorRole } : {}),
      },
    });
    return {
      invitation_url: invitation.invitationUrl,
      expires_at: invitation.expiresAt.toISOString(),
    };
  });
}
