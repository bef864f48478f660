import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { CheckoutSession, SESSION_STATUSES } from '../../api/v1-types';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ListColumn, ListPage, SelectFilter, StatusBadge } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const COLUMNS: ReadonlyArray<ListColumn<CheckoutSession>> = [
  {
    header: t('payments.id'),
    rowHeader: true,
    cell: (item) => (
      <Link to="/payments/$sessionId" params={{ sessionId: item.id }}>
        <code>{item.id}</code>
      </Link>
    ),
  },
  { header: t('payments.status'), cell: (item) => <StatusBadge status={item.status} /> },
  {
    header: t('payments.amount'),
    amount: true,
    cell: (item) => `${groupDigits(item.amount)} ${item.currency}`,
  },
  {
    header: t('payments.received'),
    amount: true,
    cell: (item) => groupDigits(item.amount_received),
  },
  { header: t('payments.network'), cell: (item) => item.network },
  { header: t('payments.reference'), cell: (item) => item.client_reference_id ?? '' },
  { header: t('payments.created'), cell: (item) => formatDateTime(item.created_at) },
];

/** Checkout sessions, newest first, 100 a page, filtered by status and creation day. */
export function PaymentsPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'checkout_sessions:read');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/checkout/sessions', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<CheckoutSession>(
    ['checkout-sessions', session?.merchant?.id],
    path,
    allowed,
  );
  return (
    <ListPage
      titleId="payments-title"
      title={t('payments.title')}
      allowed={allowed}
      actions={<Link to="/payments/unmatched">{t('unmatched.link')}</Link>}
      filters={
        <>
          <SelectFilter
            label={t('payments.status')}
            options={SESSION_STATUSES}
            value={status}
            onChange={setStatus}
          />
          <DateRangeFilter value={range} onChange={setRange} />
        </>
      }
      list={list}
      columns={COLUMNS}
      rowKey={(item) => item.id}
      empty={t('payments.empty')}
    />
  );
}
