import { Link, useNavigate } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { Payout, PAYOUT_STATUSES } from '../../api/v1-types';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ListColumn, ListPage, SelectFilter, StatusBadge } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const COLUMNS: ReadonlyArray<ListColumn<Payout>> = [
  {
    header: t('payouts.id'),
    rowHeader: true,
    cell: (item) => (
      <Link to="/payouts/$payoutId" params={{ payoutId: item.id }}>
        <code>{item.id}</code>
      </Link>
    ),
  },
  { header: t('payouts.status'), cell: (item) => <StatusBadge status={item.status} /> },
  {
    header: t('payouts.amount'),
    amount: true,
    cell: (item) => `${groupDigits(item.amount)} ${item.currency}`,
  },
  { header: t('payouts.network'), cell: (item) => item.network },
  {
    header: t('payouts.toAddress'),
    cell: (item) => <code className="hash">{item.to_address}</code>,
  },
  { header: t('payouts.created'), cell: (item) => formatDateTime(item.created_at) },
];

/** Payouts, newest first, 100 a page, filtered by status and creation day. */
export function PayoutsPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'payouts:read');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/payouts', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<Payout>(['payouts', session?.merchant?.id], path, allowed);
  return (
    <ListPage
      titleId="payouts-title"
      title={t('payouts.title')}
      allowed={allowed}
      actions={
        can(session, 'payouts:write') && (
          <button type="button" onClick={() => navigate({ to: '/payouts/new' })}>
            {t('payouts.create')}
          </button>
        )
      }
      filters={
        <>
          <SelectFilter
            label={t('payouts.status')}
            options={PAYOUT_STATUSES}
            value={status}
            onChange={setStatus}
          />
          <DateRangeFilter value={range} onChange={setRange} />
        </>
      }
      list={list}
      columns={COLUMNS}
      rowKey={(item) => item.id}
      empty={t('payouts.empty')}
    />
  );
}
