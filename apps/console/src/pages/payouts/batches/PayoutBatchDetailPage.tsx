import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { dataOrThrow, v1 } from '../../../api/v1';
import { PAYOUT_STATUSES } from '../../../api/v1-types';
import { DetailLayout, DetailList } from '../../../components/DetailLayout';
import { ListTable, StatusBadge } from '../../../components/ListPage';
import { formatDateTime, groupDigits } from '../../../format';
import { t } from '../../../i18n/t';
import { can, useSession } from '../../../session';
import { PayoutBatch } from './payout-batches-api';

type BatchTotal = PayoutBatch['totals'][number];

/** One batch: its status, counts and totals per status (read from its payouts), and its payouts. */
export function PayoutBatchDetailPage() {
  const { batchId } = useParams({ from: '/signed-in/payouts/batches/$batchId' });
  const { data: session } = useSession();
  const allowed = can(session, 'payouts:read');
  const batch = useQuery({
    queryKey: ['payout-batch', batchId],
    queryFn: async () =>
      dataOrThrow(await v1.GET('/v1/payout-batches/{id}', { params: { path: { id: batchId } } })),
    enabled: allowed,
  });
  return (
    <DetailLayout
      titleId="payout-batch-title"
      title={t('payoutBatches.detailTitle')}
      id={batchId}
      back={<Link to="/payouts/batches">{t('payoutBatches.back')}</Link>}
      allowed={allowed}
      query={batch}
    >
      {(data) => (
        <>
          <DetailList
            items={[
              [t('payouts.status'), <StatusBadge status={data.status} />],
              [t('payoutBatches.itemCount'), String(data.item_count)],
              ...PAYOUT_STATUSES.map((status): [string, string] => [
                t('payoutBatches.countOf', { status }),
                String(data.counts[status]),
              ]),
              [t('payoutBatches.subMerchant'), data.sub_merchant_code],
              [t('payouts.created'), formatDateTime(data.created_at)],
            ]}
          />
          <p>
            <Link to="/payouts" search={{ batch_id: data.id }}>
              {t('payoutBatches.viewPayouts', { count: data.item_count })}
            </Link>
          </p>
          <h2>{t('payoutBatches.totalsTitle')}</h2>
          <ListTable<BatchTotal>
            items={data.totals}
            rowKey={(total) => `${total.status}:${total.network}:${total.currency}`}
            columns={[
              {
                header: t('payouts.status'),
                rowHeader: true,
                cell: (total) => <StatusBadge status={total.status} />,
              },
              { header: t('payouts.network'), cell: (total) => total.network },
              { header: t('payoutBatches.rows'), amount: true, cell: (total) => total.count },
              {
                header: t('payouts.amount'),
                amount: true,
                cell: (total) => `${groupDigits(total.amount)} ${total.currency}`,
              },
              {
                header: t('payouts.fee'),
                amount: true,
                cell: (total) => `${groupDigits(total.fee)} ${total.currency}`,
              },
              {
                header: t('payouts.net'),
                amount: true,
                cell: (total) => `${groupDigits(total.net_amount)} ${total.currency}`,
              },
            ]}
          />
        </>
      )}
    </DetailLayout>
  );
}
