import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { dataOrThrow, v1 } from '../../api/v1';
import { DetailLayout, DetailList } from '../../components/DetailLayout';
import { StatusBadge } from '../../components/ListPage';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** One payout: amounts, destination, transaction, its review and its events. */
export function PayoutDetailPage() {
  const { payoutId } = useParams({ from: '/signed-in/payouts/$payoutId' });
  const { data: session } = useSession();
  const allowed = can(session, 'payouts:read');
  const payout = useQuery({
    queryKey: ['payout', payoutId],
    queryFn: async () =>
      dataOrThrow(await v1.GET('/v1/payouts/{id}', { params: { path: { id: payoutId } } })),
    enabled: allowed,
  });
  return (
    <DetailLayout
      titleId="payout-title"
      title={t('payouts.detailTitle')}
      id={payoutId}
      back={<Link to="/payouts">{t('payouts.back')}</Link>}
      allowed={allowed}
      query={payout}
    >
      {(data) => (
        <DetailList
          items={[
            [t('payouts.status'), <StatusBadge status={data.status} />],
            [t('payouts.amount'), `${groupDigits(data.amount)} ${data.currency}`],
            [t('payouts.fee'), `${groupDigits(data.fee)} ${data.currency}`],
            [t('payouts.net'), `${groupDigits(data.net_amount)} ${data.currency}`],
            [t('payouts.network'), data.network],
            [t('payouts.toAddress'), <code className="hash">{data.to_address}</code>],
            [t('payouts.txHash'), data.tx_hash && <code className="hash">{data.tx_hash}</code>],
            [t('payouts.review'), reviewState(data)],
            [t('payouts.pendingReason'), data.pending_reason],
            [t('payouts.errorReason'), data.error_reason],
            [t('payouts.description'), data.description],
            [t('payouts.created'), formatDateTime(data.created_at)],
            [t('payouts.completed'), data.completed_at && formatDateTime(data.completed_at)],
          ]}
        />
      )}
    </DetailLayout>
  );
}

function reviewState(payout: {
  status: string;
  pending_reason?: string | null;
  reviewed_by?: string | null;
  reviewed_at?: string | null;
}): string {
  if (payout.reviewed_at) {
    return t('payouts.reviewedOn', {
      date: formatDateTime(payout.reviewed_at),
      by: payout.reviewed_by ?? '',
    });
  }
  if (payout.status === 'Pending' && payout.pending_reason?.startsWith('review_')) {
    return t('payouts.awaitingReview');
  }
  return t('payouts.noReview');
}
