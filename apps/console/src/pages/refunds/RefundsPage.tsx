import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { Refund, REFUND_STATUSES } from '../../api/v1-types';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ListColumn, ListPage, SelectFilter, StatusBadge } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** GET /v1/refunds refuses a session_id of another form: the filter waits for a whole id. */
const SESSION_ID = /^cs_[0-9A-Za-z]{22}$/;

const COLUMNS: ReadonlyArray<ListColumn<Refund>> = [
  {
    header: t('refunds.id'),
    rowHeader: true,
    cell: (item) => (
      <Link to="/refunds/$refundId" params={{ refundId: item.id }}>
        <code>{item.id}</code>
      </Link>
    ),
  },
  { header: t('refunds.status'), cell: (item) => <StatusBadge status={item.status} /> },
  {
    header: t('refunds.amount'),
    amount: true,
    cell: (item) => `${groupDigits(item.amount)} ${item.currency}`,
  },
  { header: t('refunds.network'), cell: (item) => item.network },
  {
    header: t('refunds.payment'),
    cell: (item) =>
      item.session_id ? (
        <Link to="/payments/$sessionId" params={{ sessionId: item.session_id }}>
          <code>{item.session_id}</code>
        </Link>
      ) : (
        <code>{item.unmatched_transfer_id}</code>
      ),
  },
  { header: t('refunds.created'), cell: (item) => formatDateTime(item.created_at) },
];

/** Refunds, newest first, 100 a page, filtered by status, payment and creation day. */
export function RefundsPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'refunds:read');
  const [status, setStatus] = useState('');
  const [sessionId, setSessionId] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/refunds', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    session_id: SESSION_ID.test(sessionId) ? sessionId : undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<Refund>(['refunds', session?.merchant?.id], path, allowed);
  return (
    <ListPage
      titleId="refunds-title"
      title={t('refunds.title')}
      allowed={allowed}
      filters={
        <>
          <SelectFilter
            label={t('refunds.status')}
            options={REFUND_STATUSES}
            value={status}
            onChange={setStatus}
          />
          <label>
            {t('refunds.sessionFilter')}
            <input
              name="session_id"
              placeholder={t('refunds.sessionFilterHint')}
              autoComplete="off"
              spellCheck={false}
              value={sessionId}
              onChange={(event) => setSessionId(event.target.value.trim())}
            />
          </label>
          <DateRangeFilter value={range} onChange={setRange} />
        </>
      }
      list={list}
      columns={COLUMNS}
      rowKey={(item) => item.id}
      empty={t('refunds.empty')}
    />
  );
}
