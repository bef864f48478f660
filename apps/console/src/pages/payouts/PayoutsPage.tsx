import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { listPath, PAGE_SIZE } from '../../api/list';
import { Payout, PAYOUT_STATUSES } from '../../api/v1-types';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../components/DateRangeFilter';
import { ListColumn, ListPage, SelectFilter, StatusBadge } from '../../components/ListPage';
import { usePagedList } from '../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import { BATCH_ID } from './batches/payout-batches-api';

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

/** Payouts, newest first, 100 a page, filtered by status, batch and creation day. */
export function PayoutsPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'payouts:read');
  // The batch filter lives in the address (?batch_id=), so a batch's page links to its payouts.
  const search = useSearch({ from: '/signed-in/payouts' });
  const [batchId, setBatchId] = useState(search.batch_id ?? '');
  const [status, setStatus] = useState('');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/payouts', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    status: status || undefined,
    // GET /v1/payouts takes any batch_id: the filter waits for a whole id.
    batch_id: BATCH_ID.test(batchId) ? batchId : undefined,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<Payout>(['payouts', session?.merchant?.id], path, allowed);
  return (
    <ListPage
      titleId="payouts-title"
      title={t('payouts.title')}
      allowed={allowed}
      actions={
        <>
          {can(session, 'payouts:write') && (
            <>
              <button type="button" onClick={() => navigate({ to: '/payouts/new' })}>
                {t('payouts.create')}
              </button>{' '}
              <button type="button" onClick={() => navigate({ to: '/payouts/batches/new' })}>
                {t('payoutBatches.upload')}
              </button>{' '}
            </>
          )}
          <Link to="/payouts/batches">{t('payoutBatches.title')}</Link>
        </>
      }
      filters={
        <>
          <SelectFilter
            label={t('payouts.status')}
            options={PAYOUT_STATUSES}
            value={status}
            onChange={setStatus}
          />
          <label>
            {t('payoutBatches.batchFilter')}
            <input
              name="batch_id"
              placeholder={t('payoutBatches.batchFilterHint')}
              autoComplete="off"
              spellCheck={false}
              value={batchId}
              onChange={(event) => {
                const value = event.target.value.trim();
                setBatchId(value);
                void navigate({
                  to: '/payouts',
                  search: BATCH_ID.test(value) ? { batch_id: value } : {},
                  replace: true,
                });
              }}
            />
          </label>
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
