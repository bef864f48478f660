import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SecuritySession } from '../../api/console-lists';
import { consoleRequest } from '../../api/http';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { PasskeysSection } from '../../components/PasskeysSection';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { useSession } from '../../session';

const SESSIONS_KEY = ['security-sessions'] as const;

/**
 * Settings → Security: the user's passkeys, and the user's own signed-in sessions, any other of
 * which it may end.
 */
export function SecurityPage() {
  const { data: session } = useSession();
  const [ending, setEnding] = useState<SecuritySession | null>(null);
  const sessions = useQuery({
    queryKey: [...SESSIONS_KEY, session?.user.id],
    queryFn: () => consoleRequest<SecuritySession[]>('GET', '/console/api/security/sessions'),
  });
  return (
    <section aria-labelledby="security-title">
      <h1 id="security-title">{t('security.title')}</h1>
      <h2>{t('security.sessions')}</h2>
      <p>{t('security.intro')}</p>
      {sessions.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={sessions.error} />
      {sessions.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('security.device')}</th>
              <th scope="col">{t('security.ip')}</th>
              <th scope="col">{t('security.signedIn')}</th>
              <th scope="col">{t('security.lastSeen')}</th>
              <th scope="col">{t('security.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  {item.user_agent ?? t('security.unknownDevice')}
                  {item.current && <span className="badge">{t('security.thisSession')}</span>}
                </th>
                <td>{item.ip ?? ''}</td>
                <td>{formatDateTime(item.created_at)}</td>
                <td>{formatDateTime(item.last_seen_at)}</td>
                <td>
                  {!item.current && (
                    <button
                      type="button"
                      className="danger"
                      aria-label={t('security.signOutNamed', {
                        date: formatDateTime(item.created_at),
                      })}
                      onClick={() => setEnding(item)}
                    >
                      {t('security.signOut')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {ending && <EndSessionDialog target={ending} onClose={() => setEnding(null)} />}
      <PasskeysSection userId={session?.user.id} />
    </section>
  );
}

function EndSessionDialog({ target, onClose }: { target: SecuritySession; onClose: () => void }) {
  const queryClient = useQueryClient();
  const end = useMutation({
    mutationFn: () =>
      consoleRequest<unknown>(
        'DELETE',
        `/console/api/security/sessions/${encodeURIComponent(target.id)}`,
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
      onClose();
    },
  });
  return (
    <Dialog title={t('security.signOutTitle')} onClose={onClose}>
      <p>
        {t('security.signOutConfirm', {
          device: target.user_agent ?? t('security.unknownDevice'),
          date: formatDateTime(target.created_at),
        })}
      </p>
      <ErrorMessage error={end.error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose}>
          {t('apiKeys.cancel')}
        </button>
        <button
          type="button"
          className="danger"
          disabled={end.isPending}
          onClick={() => end.mutate()}
        >
          {t('security.signOut')}
        </button>
      </div>
    </Dialog>
  );
}
