import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import { randomToken, sha256 } from '../crypto/tokens';
import { ConsoleRealm } from '../users/console-user';
import { IssuedInvitation } from './invitation';
import { InvitationsRepository } from './invitations.repository';

export interface InvitationRequest {
  realm: ConsoleRealm;
  /** Null for an operator's invitation. */
  merchantId: string | null;
  /** Lowercased already. */
  email: string;
  role: ConsoleRole | null;
  invitedByUserId: string | null;
}

/**
 * Creates an invitation: a 256-bit token, of which the table keeps the SHA-256, handed over in
 * the fragment of the invitation URL (never sent to a server, so never in an access log).
 */
@Injectable()
export class InvitationIssuer {
  constructor(
    private readonly invitations: InvitationsRepository,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'publicUrl'>,
  ) {}

  async issue(manager: EntityManager, request: InvitationRequest): Promise<IssuedInvitation> {
    const token = randomToken();
    const { id, expiresAt } = await this.invitations.create(manager, {
      ...request,
      tokenHash: sha256(token),
    });
    const area = request.realm === 'operator' ? 'ops' : 'console';
    return {
      id,
      invitationUrl: `${this.config.publicUrl}/${area}/accept-invitation#token=${token}`,
      expiresAt,
    };
  }
}
