import { AuditEntry } from '../../api/console-lists';
import { listPath } from '../../api/list';
import { ListColumn, ListPage } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const COLUMNS: ReadonlyArray<ListColumn<AuditEntry>> = [
  { header: t('activity.time'), cell: (entry) => formatDateTime(entry.created_at) },
  { header: t('activity.action'), cell: (entry) => <code>{entry.action}</code> },
  { header: t('activity.actor'), cell: (entry) => entry.actor.email ?? entry.actor.type },
  {
    header: t('activity.target'),
    cell: (entry) =>
      entry.target ? (
        <code>
          {entry.target.type} {entry.target.id ?? ''}
        </code>
      ) : (
        ''
      ),
  },
  { header: t('activity.ip'), cell: (entry) => entry.ip ?? '' },
];

/** Settings → Activity: the merchant's audit log, newest first, paged by its Link header. */
export function ActivityPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'audit_log:read');
  const list = usePagedList<AuditEntry>(
    ['audit-log', session?.merchant?.id],
    listPath('/console/api/audit-log', { limit: 100 }),
    allowed,
  );
  return (
    <ListPage
      titleId="activity-title"
      title={t('activity.title')}
      intro={t('activity.intro')}
      allowed={allowed}
      list={list}
      columns={COLUMNS}
      rowKey={(entry) => entry.id}
      empty={t('activity.empty')}
    />
  );
}
