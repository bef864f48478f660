import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { fetchListPage, listPath, PAGE_SIZE } from '../../api/list';
import { dataOrThrow, v1 } from '../../api/v1';
import { CheckoutSession, Refund } from '../../api/v1-types';
import { DetailLayout, DetailList } from '../../components/DetailLayout';
import { ErrorMessage } from '../../components/ErrorMessage';
import { ListColumn, ListTable, StatusBadge } from '../../components/ListPage';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import { UnmatchedTransfer, unmatchedTransferColumns } from './unmatched-transfer-columns';

type Transaction = CheckoutSession['transactions'][number];

/** A decimal string of zero ("0", "0.00"). */
const NOTHING = /^0(\.0+)?$/;

const TRANSACTION_COLUMNS: ReadonlyArray<ListColumn<Transaction>> = [
  { header: t('payments.txHash'), cell: (item) => <code className="hash">{item.tx_hash}</code> },
  { header: t('payments.status'), cell: (item) => item.status },
  { header: t('payments.amount'), amount: true, cell: (item) => groupDigits(item.amount) },
  { header: t('payments.seen'), cell: (item) => formatDateTime(item.created_at) },
];

const REFUND_COLUMNS: ReadonlyArray<ListColumn<Refund>> = [
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
  { header: t('refunds.created'), cell: (item) => formatDateTime(item.created_at) },
];

/** One checkout session: amounts, where to pay, its transfers, refunds and events' deliveries. */
export function PaymentDetailPage() {
  const { sessionId } = useParams({ from: '/signed-in/payments/$sessionId' });
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'checkout_sessions:read');
  const checkout = useQuery({
    queryKey: ['checkout-session', sessionId],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/checkout/sessions/{id}', { params: { path: { id: sessionId } } }),
      ),
    enabled: allowed,
  });
  return (
    <DetailLayout
      titleId="payment-title"
      title={t('payments.detailTitle')}
      id={sessionId}
      back={<Link to="/payments">{t('payments.back')}</Link>}
      allowed={allowed}
      query={checkout}
      actions={(data) =>
        // Nothing received, nothing to give back: the API would only refuse.
        can(session, 'refunds:write') &&
        !NOTHING.test(data.amount_received) && (
          <button
            type="button"
            onClick={() => navigate({ to: '/payments/$sessionId/refund', params: { sessionId } })}
          >
            {t('refunds.create')}
          </button>
        )
      }
    >
      {(data) => (
        <>
          <DetailList
            items={[
              [t('payments.status'), <StatusBadge status={data.status} />],
              [t('payments.amount'), `${groupDigits(data.amount)} ${data.currency}`],
              [t('payments.received'), `${groupDigits(data.amount_received)} ${data.currency}`],
              [t('payments.fee'), `${groupDigits(data.fee_amount)} ${data.currency}`],
              [t('payments.net'), `${groupDigits(data.net_amount)} ${data.currency}`],
              [t('payments.network'), data.network],
              [t('payments.payAddress'), <code>{data.pay_address}</code>],
              [t('payments.reference'), data.client_reference_id],
              [t('payments.subMerchant'), data.sub_merchant_code],
              [t('payments.created'), formatDateTime(data.created_at)],
              [t('payments.expires'), formatDateTime(data.expires_at)],
            ]}
          />
          <h2>{t('payments.transactions')}</h2>
          {data.transactions.length === 0 ? (
            <p>{t('payments.noTransactions')}</p>
          ) : (
            <ListTable
              items={data.transactions}
              columns={TRANSACTION_COLUMNS}
              rowKey={(item) => `${item.tx_hash}-${item.created_at}`}
            />
          )}
          <SessionRefunds sessionId={sessionId} />
          <SessionUnmatchedTransfers sessionId={sessionId} />
        </>
      )}
    </DetailLayout>
  );
}

/** The session's refunds, newest first, for members who may read refunds. */
function SessionRefunds({ sessionId }: { sessionId: string }) {
  const { data: session } = useSession();
  const allowed = can(session, 'refunds:read');
  const refunds = useQuery({
    queryKey: ['session-refunds', sessionId],
    queryFn: () =>
      fetchListPage<Refund>(
        listPath('/v1/refunds', {
          session_id: sessionId,
          page_size: PAGE_SIZE,
          include_sub_merchants: true,
        }),
      ),
    enabled: allowed,
  });
  if (!allowed) return null;
  return (
    <>
      <h2>{t('refunds.ofPayment')}</h2>
      {refunds.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={refunds.error} />
      {refunds.data?.items.length === 0 && <p>{t('refunds.noneOfPayment')}</p>}
      {refunds.data && refunds.data.items.length > 0 && (
        <ListTable items={refunds.data.items} columns={REFUND_COLUMNS} rowKey={(item) => item.id} />
      )}
    </>
  );
}

/**
 * Transfers to the session's pay address that it did not take (another network or token, a
 * second payment, one after a refund), each with "Refund" for members who may refund.
 */
function SessionUnmatchedTransfers({ sessionId }: { sessionId: string }) {
  const { data: session } = useSession();
  const transfers = useQuery({
    queryKey: ['session-unmatched-transfers', sessionId],
    queryFn: () =>
      fetchListPage<UnmatchedTransfer>(
        listPath('/v1/unmatched-transfers', {
          session_id: sessionId,
          page_size: PAGE_SIZE,
          include_sub_merchants: true,
        }),
      ),
  });
  return (
    <>
      <h2>{t('unmatched.ofPayment')}</h2>
      {transfers.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={transfers.error} />
      {transfers.data?.items.length === 0 && <p>{t('unmatched.noneOfPayment')}</p>}
      {transfers.data && transfers.data.items.length > 0 && (
        <ListTable
          items={transfers.data.items}
          columns={unmatchedTransferColumns({
            withPayment: false,
            canRefund: can(session, 'refunds:write'),
          })}
          rowKey={(item) => item.id}
        />
      )}
    </>
  );
}
