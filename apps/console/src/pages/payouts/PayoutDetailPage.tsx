import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { fetchListPage, listPath, PAGE_SIZE } from '../../api/list';
import { dataOrThrow, v1 } from '../../api/v1';
import { ApiEvent } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { EventList } from '../../components/EventDeliveries';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** One payout: amounts, destination, transaction, its review and its events. */
export function PayoutDetailPage() {
  const { payoutId } = useParams({ from: '/signed-in/payouts/$payoutId' });
  const { data: session } = useSession();
  const allowed = can(session, 'payouts:read');
  const mayReadEvents = can(session, 'events:read');
  const payout = useQuery({
    queryKey: ['payout', payoutId],
    queryFn: async () =>
      dataOrThrow(await v1.GET('/v1/payouts/{id}', { params: { path: { id: payoutId } } })),
    enabled: allowed,
  });
  const events = useQuery({
    queryKey: ['object-events', payoutId],
    queryFn: () =>
      fetchListPage<ApiEvent>(
        listPath('/v1/events', {
          object_id: payoutId,
          page_size: PAGE_SIZE,
          include_sub_merchants: true,
        }),
      ),
    enabled: allowed && mayReadEvents,
  });
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const data = payout.data;
  const none = t('payments.none');
  return (
    <section aria-labelledby="payout-title">
      <p>
        <Link to="/payouts">{t('payouts.back')}</Link>
      </p>
      <h1 id="payout-title">
        {t('payouts.detailTitle')} <code>{payoutId}</code>
      </h1>
      {payout.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={payout.error} />
      {data && (
        <dl className="details">
          <dt>{t('payouts.status')}</dt>
          <dd>
            <span className={`status status-${data.status.toLowerCase()}`}>{data.status}</span>
          </dd>
          <dt>{t('payouts.amount')}</dt>
          <dd>
            {groupDigits(data.amount)} {data.currency}
          </dd>
          <dt>{t('payouts.fee')}</dt>
          <dd>
            {groupDigits(data.fee)} {data.currency}
          </dd>
          <dt>{t('payouts.net')}</dt>
          <dd>
            {groupDigits(data.net_amount)} {data.currency}
          </dd>
          <dt>{t('payouts.network')}</dt>
          <dd>{data.network}</dd>
          <dt>{t('payouts.toAddress')}</dt>
          <dd>
            <code className="hash">{data.to_address}</code>
          </dd>
          <dt>{t('payouts.txHash')}</dt>
          <dd>{data.tx_hash ? <code className="hash">{data.tx_hash}</code> : none}</dd>
          <dt>{t('payouts.review')}</dt>
          <dd>{reviewState(data)}</dd>
          <dt>{t('payouts.pendingReason')}</dt>
          <dd>{data.pending_reason ?? none}</dd>
          <dt>{t('payouts.errorReason')}</dt>
          <dd>{data.error_reason ?? none}</dd>
          <dt>{t('payouts.description')}</dt>
          <dd>{data.description ?? none}</dd>
          <dt>{t('payouts.created')}</dt>
          <dd>{formatDateTime(data.created_at)}</dd>
          <dt>{t('payouts.completed')}</dt>
          <dd>{data.completed_at ? formatDateTime(data.completed_at) : none}</dd>
        </dl>
      )}
      {mayReadEvents && (
        <>
          <h2>{t('payments.events')}</h2>
          {events.isPending && <p>{t('app.loading')}</p>}
          <ErrorMessage error={events.error} />
          {events.data?.items.length === 0 && <p>{t('payments.noEvents')}</p>}
          {events.data && events.data.items.length > 0 && <EventList events={events.data.items} />}
        </>
      )}
    </section>
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
