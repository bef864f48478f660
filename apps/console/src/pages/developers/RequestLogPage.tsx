import { useState } from 'react';
import { RequestLogEntry, LOGGED_METHODS } from '../../api/console-lists';
import { listPath, PAGE_SIZE } from '../../api/list';
import { ListColumn, ListPage, SelectFilter } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const STATUS_CODE = /^[1-5]\d\d$/;

const COLUMNS: ReadonlyArray<ListColumn<RequestLogEntry>> = [
  { header: t('requestLog.time'), cell: (entry) => formatDateTime(entry.created_at) },
  { header: t('requestLog.method'), cell: (entry) => entry.method },
  { header: t('requestLog.path'), cell: (entry) => <code className="hash">{entry.path}</code> },
  { header: t('requestLog.status'), cell: (entry) => entry.status },
  {
    header: t('requestLog.key'),
    cell: (entry) =>
      entry.key_hint ? <code className="key-hint">{entry.key_hint}</code> : t('requestLog.console'),
  },
  { header: t('requestLog.requestId'), cell: (entry) => <code>{entry.request_id}</code> },
  {
    header: t('requestLog.latency'),
    amount: true,
    cell: (entry) => t('events.milliseconds', { ms: entry.latency_ms }),
  },
];

/** Developers → Request log: the merchant's API requests of the last 30 days, newest first. */
export function RequestLogPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'request_log:read');
  const [method, setMethod] = useState('');
  const [status, setStatus] = useState('');
  // Only a whole status code filters: the server refuses anything else.
  const statusFilter = STATUS_CODE.test(status.trim()) ? status.trim() : undefined;
  const list = usePagedList<RequestLogEntry>(
    ['request-log', session?.merchant?.id],
    listPath('/console/api/request-log', {
      page_size: PAGE_SIZE,
      method: method || undefined,
      status: statusFilter,
    }),
    allowed,
  );
  return (
    <ListPage
      titleId="request-log-title"
      title={t('requestLog.title')}
      intro={t('requestLog.intro')}
      allowed={allowed}
      filters={
        <>
          <SelectFilter
            label={t('requestLog.method')}
            options={LOGGED_METHODS}
            value={method}
            onChange={setMethod}
          />
          <label>
            {t('requestLog.statusCode')}
            <input
              type="text"
              inputMode="numeric"
              maxLength={3}
              value={status}
              onChange={(event) => setStatus(event.target.value)}
            />
          </label>
        </>
      }
      list={list}
      columns={COLUMNS}
      rowKey={(entry) => entry.request_id}
      empty={t('requestLog.empty')}
    />
  );
}
