import { Link, useNavigate } from '@tanstack/react-router';
import { listPath, PAGE_SIZE } from '../../../api/list';
import { createdRangeQuery, DateRange, DateRangeFilter } from '../../../components/DateRangeFilter';
import { ListColumn, ListPage, StatusBadge } from '../../../components/ListPage';
import { usePagedList } from '../../../components/usePagedList';
import { formatDateTime, groupDigits } from '../../../format';
import { t } from '../../../i18n/t';
import { can, useSession } from '../../../session';
import { useState } from 'react';
import { sumDecimals } from './batch-csv';
import { PayoutBatch } from './payout-batches-api';

/** The batch's amount per token, all statuses together (exact: decimal strings summed). */
function amountsOf(batch: PayoutBatch): string {
  const byToken = new Map<string, string[]>();
  for (const total of batch.totals) {
    const key = `${total.currency} ${total.network}`;
    byToken.set(key, [...(byToken.get(key) ?? []), total.amount]);
  }
  return [...byToken.entries()]
    .map(([token, amounts]) => `${groupDigits(sumDecimals(amounts))} ${token}`)
    .join(', ');
}

const COLUMNS: ReadonlyArray<ListColumn<PayoutBatch>> = [
  {
    header: t('payoutBatches.id'),
    rowHeader: true,
    cell: (item) => (
      <Link to="/payouts/batches/$batchId" params={{ batchId: item.id }}>
        <code>{item.id}</code>
      </Link>
    ),
  },
  { header: t('payouts.status'), cell: (item) => <StatusBadge status={item.status} /> },
  { header: t('payoutBatches.itemCount'), amount: true, cell: (item) => item.item_count },
  { header: t('payoutBatches.amounts'), cell: amountsOf },
  { header: t('payouts.created'), cell: (item) => formatDateTime(item.created_at) },
];

/** Payout batches, newest first, 100 a page (GET /v1/payout-batches). */
export function PayoutBatchesPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'payouts:read');
  const [range, setRange] = useState<DateRange>({ from: '', until: '' });
  const path = listPath('/v1/payout-batches', {
    page_size: PAGE_SIZE,
    include_sub_merchants: true,
    ...createdRangeQuery(range),
  });
  const list = usePagedList<PayoutBatch>(['payout-batches', session?.merchant?.id], path, allowed);
  return (
    <ListPage
      titleId="payout-batches-title"
      title={t('payoutBatches.title')}
      allowed={allowed}
      actions={
        <>
          <Link to="/payouts">{t('payouts.back')}</Link>{' '}
          {can(session, 'payouts:write') && (
            <button type="button" onClick={() => navigate({ to: '/payouts/batches/new' })}>
              {t('payoutBatches.upload')}
            </button>
          )}
        </>
      }
      filters={<DateRangeFilter value={range} onChange={setRange} />}
      list={list}
      columns={COLUMNS}
      rowKey={(item) => item.id}
      empty={t('payoutBatches.empty')}
    />
  );
}
