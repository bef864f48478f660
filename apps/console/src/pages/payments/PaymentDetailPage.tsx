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

/** One checkout session: amounts, where to pay, its transfers and its events' deliveries. */
export function PaymentDetailPage() {
  const { sessionId } = useParams({ from: '/signed-in/payments/$sessionId' });
  const { data: session } = useSession();
  const allowed = can(session, 'checkout_sessions:read');
  const mayReadEvents = can(session, 'events:read');
  const checkout = useQuery({
    queryKey: ['checkout-session', sessionId],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/checkout/sessions/{id}', { params: { path: { id: sessionId } } }),
      ),
    enabled: allowed,
  });
  const events = useQuery({
    queryKey: ['object-events', sessionId],
    queryFn: () =>
      fetchListPage<ApiEvent>(
        listPath('/v1/events', {
          object_id: sessionId,
          page_size: PAGE_SIZE,
          include_sub_merchants: true,
        }),
      ),
    enabled: allowed && mayReadEvents,
  });
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const data = checkout.data;
  return (
    <section aria-labelledby="payment-title">
      <p>
        <Link to="/payments">{t('payments.back')}</Link>
      </p>
      <h1 id="payment-title">
        {t('payments.detailTitle')} <code>{sessionId}</code>
      </h1>
      {checkout.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={checkout.error} />
      {data && (
        <>
          <dl className="details">
            <dt>{t('payments.status')}</dt>
            <dd>
              <span className={`status status-${data.status.toLowerCase()}`}>{data.status}</span>
            </dd>
            <dt>{t('payments.amount')}</dt>
            <dd>
              {groupDigits(data.amount)} {data.currency}
            </dd>
            <dt>{t('payments.received')}</dt>
            <dd>
              {groupDigits(data.amount_received)} {data.currency}
            </dd>
            <dt>{t('payments.fee')}</dt>
            <dd>
              {groupDigits(data.fee_amount)} {data.currency}
            </dd>
            <dt>{t('payments.net')}</dt>
            <dd>
              {groupDigits(data.net_amount)} {data.currency}
            </dd>
            <dt>{t('payments.network')}</dt>
            <dd>{data.network}</dd>
            <dt>{t('payments.payAddress')}</dt>
            <dd>
              <code>{data.pay_address}</code>
            </dd>
            <dt>{t('payments.reference')}</dt>
            <dd>{data.client_reference_id ?? t('payments.none')}</dd>
            <dt>{t('payments.subMerchant')}</dt>
            <dd>{data.sub_merchant_code ?? t('payments.none')}</dd>
            <dt>{t('payments.created')}</dt>
            <dd>{formatDateTime(data.created_at)}</dd>
            <dt>{t('payments.expires')}</dt>
            <dd>{formatDateTime(data.expires_at)}</dd>
          </dl>
          <h2>{t('payments.transactions')}</h2>
          {data.transactions.length === 0 ? (
            <p>{t('payments.noTransactions')}</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('payments.txHash')}</th>
                  <th scope="col">{t('payments.status')}</th>
                  <th scope="col" className="amount">
                    {t('payments.amount')}
                  </th>
                  <th scope="col">{t('payments.seen')}</th>
                </tr>
              </thead>
              <tbody>
                {data.transactions.map((transaction) => (
                  <tr key={`${transaction.tx_hash}-${transaction.created_at}`}>
                    <td>
                      <code className="hash">{transaction.tx_hash}</code>
                    </td>
                    <td>{transaction.status}</td>
                    <td className="amount">{groupDigits(transaction.amount)}</td>
                    <td>{formatDateTime(transaction.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
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
