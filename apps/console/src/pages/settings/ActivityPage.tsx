import { AuditEntry } from '../../api/console-lists';
import { listPath } from '../../api/list';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** Settings → Activity: the merchant's audit log, newest first, paged by its Link header. */
export function ActivityPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'audit_log:read');
  const list = usePagedList<AuditEntry>(
    ['audit-log', session?.merchant?.id],
    listPath('/console/api/audit-log', { limit: 100 }),
    allowed,
  );
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const entries = list.query.data?.items;
  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">{t('activity.title')}</h1>
      <p>{t('activity.intro')}</p>
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {entries?.length === 0 && <p>{t('activity.empty')}</p>}
      {entries && entries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('activity.time')}</th>
              <th scope="col">{t('activity.action')}</th>
              <th scope="col">{t('activity.actor')}</th>
              <th scope="col">{t('activity.target')}</th>
              <th scope="col">{t('activity.ip')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td>{formatDateTime(entry.created_at)}</td>
                <td>
                  <code>{entry.action}</code>
                </td>
                <td>{entry.actor.email ?? entry.actor.type}</td>
                <td>
                  {entry.target ? (
                    <code>
                      {entry.target.type} {entry.target.id ?? ''}
                    </code>
                  ) : (
                    ''
                  )}
                </td>
                <td>{entry.ip ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        pageNumber={list.pageNumber}
        hasPrevious={list.hasPrevious}
        hasNext={list.hasNext}
        onPrevious={list.goPrevious}
        onNext={list.goNext}
      />
    </section>
  );
}
