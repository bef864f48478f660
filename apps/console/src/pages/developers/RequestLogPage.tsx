import { useState } from 'react';
import { RequestLogEntry, LOGGED_METHODS } from '../../api/console-lists';
import { listPath, PAGE_SIZE } from '../../api/list';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Pager } from '../../components/Pager';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const STATUS_CODE = /^[1-5]\d\d$/;

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
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const entries = list.query.data?.items;
  return (
    <section aria-labelledby="request-log-title">
      <h1 id="request-log-title">{t('requestLog.title')}</h1>
      <p>{t('requestLog.intro')}</p>
      <form className="filters" aria-label={t('filters.label')}>
        <label>
          {t('requestLog.method')}
          <select value={method} onChange={(event) => setMethod(event.target.value)}>
            <option value="">{t('filters.any')}</option>
            {LOGGED_METHODS.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
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
      </form>
      {list.query.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={list.query.error} />
      {entries?.length === 0 && <p>{t('requestLog.empty')}</p>}
      {entries && entries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('requestLog.time')}</th>
              <th scope="col">{t('requestLog.method')}</th>
              <th scope="col">{t('requestLog.path')}</th>
              <th scope="col">{t('requestLog.status')}</th>
              <th scope="col">{t('requestLog.key')}</th>
              <th scope="col">{t('requestLog.requestId')}</th>
              <th scope="col" className="amount">
                {t('requestLog.latency')}
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.request_id}>
                <td>{formatDateTime(entry.created_at)}</td>
                <td>{entry.method}</td>
                <td>
                  <code className="hash">{entry.path}</code>
                </td>
                <td>{entry.status}</td>
                <td>
                  {entry.key_hint ? (
                    <code className="key-hint">{entry.key_hint}</code>
                  ) : (
                    t('requestLog.console')
                  )}
                </td>
                <td>
                  <code>{entry.request_id}</code>
                </td>
                <td className="amount">{t('events.milliseconds', { ms: entry.latency_ms })}</td>
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
