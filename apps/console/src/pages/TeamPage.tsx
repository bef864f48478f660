import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { CONSOLE_ROLES, ConsoleRole, ROLE_RANK } from '../../../../libs/auth/src/permissions';
import { consoleApi, CreatedInvitation } from '../api/console-api';
import { AccessDenied } from '../components/AccessDenied';
import { Dialog } from '../components/Dialog';
import { ResetLinkDialog } from '../components/ResetLinkDialog';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { can, useSession } from '../session';

export function TeamPage() {
  const { data: session } = useSession();
  const [inviting, setInviting] = useState(false);
  const [resetFor, setResetFor] = useState<{ user_id: string; email: string } | null>(null);
  const allowed = can(session, 'team:read');
  const team = useQuery({
    queryKey: ['team', session?.merchant?.id],
    queryFn: consoleApi.team,
    enabled: allowed,
  });
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  return (
    <section aria-labelledby="team-title">
      <div className="page-header">
        <h1 id="team-title">{t('team.title')}</h1>
        {can(session, 'team:write') && (
          <button type="button" onClick={() => setInviting(true)}>
            {t('team.invite')}
          </button>
        )}
      </div>
      {team.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={team.error} />
      {team.data && (
        <>
          <h2>{t('team.members')}</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('team.email')}</th>
                <th scope="col">{t('team.role')}</th>
                <th scope="col">{t('team.joined')}</th>
                {can(session, 'team:write') && <th scope="col">{t('team.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {team.data.members.map((member) => (
                <tr key={member.user_id}>
                  <td>{member.email}</td>
                  <td>{t(`roles.${member.role}`)}</td>
                  <td>{formatDateTime(member.joined_at)}</td>
                  {can(session, 'team:write') && (
                    <td>
                      {member.user_id !== session?.user.id &&
                        (member.role !== 'owner' || session?.role === 'owner') && (
                          <button
                            type="button"
                            className="secondary"
                            aria-label={t('team.resetLinkNamed', { email: member.email })}
                            onClick={() => setResetFor(member)}
                          >
                            {t('team.resetLink')}
                          </button>
                        )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <h2>{t('team.pending')}</h2>
          {team.data.invitations.length === 0 ? (
            <p>{t('team.noPending')}</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('team.email')}</th>
                  <th scope="col">{t('team.role')}</th>
                  <th scope="col">{t('team.expires')}</th>
                </tr>
              </thead>
              <tbody>
                {team.data.invitations.map((invitation) => (
                  <tr key={invitation.id}>
                    <td>{invitation.email}</td>
                    <td>{t(`roles.${invitation.role}`)}</td>
                    <td>{formatDateTime(invitation.expires_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {resetFor && <ResetLinkDialog member={resetFor} onClose={() => setResetFor(null)} />}
      {inviting && session?.role && (
        <InviteDialog ownRole={session.role} onClose={() => setInviting(false)} />
      )}
    </section>
  );
}

function InviteDialog({ ownRole, onClose }: { ownRole: ConsoleRole; onClose: () => void }) {
  const queryClient = useQueryClient();
  // An invitation never grants a role above the inviter's (the server checks it too).
  const roles = CONSOLE_ROLES.filter((role) => ROLE_RANK[role] <= ROLE_RANK[ownRole]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<ConsoleRole>('viewer');
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const invite = useMutation({
    mutationFn: () => consoleApi.invite(email, role),
    onSuccess: async (result) => {
      setCreated(result);
      await queryClient.invalidateQueries({ queryKey: ['team'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <Dialog title={t('team.invite')} onClose={onClose}>
      {created ? (
        <>
          <p>{t('team.inviteCreated', { email, date: formatDateTime(created.expires_at) })}</p>
          <label>
            {t('team.invitationUrl')}
            <input
              readOnly
              value={created.invitation_url}
              onFocus={(event) => event.target.select()}
            />
          </label>
          <div className="actions">
            <button type="button" onClick={onClose}>
              {t('team.close')}
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          <label>
            {t('team.email')}
            <input
              type="email"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </label>
          <label>
            {t('team.role')}
            <select value={role} onChange={(event) => setRole(event.target.value as ConsoleRole)}>
              {roles.map((option) => (
                <option key={option} value={option}>
                  {t(`roles.${option}`)}
                </option>
              ))}
            </select>
          </label>
          <ErrorMessage error={invite.error} />
          <div className="actions">
            <button type="button" className="secondary" onClick={onClose}>
              {t('apiKeys.cancel')}
            </button>
            <button type="submit" disabled={invite.isPending}>
              {t('team.send')}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
