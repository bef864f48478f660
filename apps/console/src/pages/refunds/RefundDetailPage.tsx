import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { ReactNode, useState } from 'react';
import { dataOrThrow, v1 } from '../../api/v1';
import { CANCELABLE_REFUND_STATUSES, Refund } from '../../api/v1-types';
import { DetailLayout, DetailList } from '../../components/DetailLayout';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { StatusBadge } from '../../components/ListPage';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

/** What the refunds library adds to the object as it grows; shown when the API sends it. */
type RefundObject = Refund & { destination_url?: string | null; send_after?: string | null };

const refundKey = (id: string) => ['refund', id] as const;

/** One refund: amounts, where it goes (or the customer's link), its transaction and events. */
export function RefundDetailPage() {
  const { refundId } = useParams({ from: '/signed-in/refunds/$refundId' });
  const { data: session } = useSession();
  const allowed = can(session, 'refunds:read');
  const [canceling, setCanceling] = useState(false);
  const [canceled, setCanceled] = useState(false);
  const refund = useQuery({
    queryKey: refundKey(refundId),
    queryFn: async (): Promise<RefundObject> =>
      dataOrThrow(await v1.GET('/v1/refunds/{id}', { params: { path: { id: refundId } } })),
    enabled: allowed,
  });
  return (
    <DetailLayout
      titleId="refund-title"
      title={t('refunds.detailTitle')}
      id={refundId}
      back={<Link to="/refunds">{t('refunds.back')}</Link>}
      allowed={allowed}
      query={refund}
      actions={(data) =>
        can(session, 'refunds:write') &&
        CANCELABLE_REFUND_STATUSES.includes(data.status) && (
          <button type="button" className="danger" onClick={() => setCanceling(true)}>
            {t('refunds.cancel')}
          </button>
        )
      }
    >
      {(data) => (
        <>
          <DetailList
            items={[
              [t('refunds.status'), <StatusBadge status={data.status} />],
              [t('refunds.amount'), `${groupDigits(data.amount)} ${data.currency}`],
              [t('refunds.fee'), `${groupDigits(data.fee)} ${data.currency}`],
              [t('refunds.net'), `${groupDigits(data.net_amount)} ${data.currency}`],
              [t('refunds.network'), data.network],
              [
                t('refunds.payment'),
                data.session_id ? (
                  <Link to="/payments/$sessionId" params={{ sessionId: data.session_id }}>
                    <code>{data.session_id}</code>
                  </Link>
                ) : (
                  <code>{data.unmatched_transfer_id}</code>
                ),
              ],
              [
                t('refunds.toAddress'),
                data.to_address ? (
                  <code className="hash">{data.to_address}</code>
                ) : (
                  t('refunds.noAddress')
                ),
              ],
              ...destinationLink(data),
              ...(data.send_after
                ? [[t('refunds.sendAfter'), formatDateTime(data.send_after)] as [string, string]]
                : []),
              [t('refunds.txHash'), data.tx_hash && <code className="hash">{data.tx_hash}</code>],
              [t('refunds.reason'), data.reason],
              [t('refunds.errorReason'), data.error_reason],
              [t('refunds.subMerchant'), data.sub_merchant_code],
              [t('refunds.created'), formatDateTime(data.created_at)],
              [t('refunds.completed'), data.completed_at && formatDateTime(data.completed_at)],
            ]}
          />
          {canceled && <p role="status">{t('refunds.canceled')}</p>}
          {canceling && (
            <CancelDialog
              refund={data}
              onClose={() => setCanceling(false)}
              onCanceled={() => setCanceled(true)}
            />
          )}
        </>
      )}
    </DetailLayout>
  );
}

/** The customer's link while the refund waits for an address (only while it has one). */
function destinationLink(refund: RefundObject): Array<[string, ReactNode]> {
  if (!refund.destination_url) return [];
  return [
    [
      t('refunds.destinationUrl'),
      <>
        <code className="hash">{refund.destination_url}</code>
        <span className="hint">{t('refunds.destinationUrlHint')}</span>
      </>,
    ],
  ];
}

/** POST /v1/refunds/{id}/cancel: sends nothing, so a session may call it (no fresh code). */
function CancelDialog(props: {
  refund: RefundObject;
  onClose: () => void;
  onCanceled: () => void;
}) {
  const { refund, onClose } = props;
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: async () =>
      dataOrThrow(
        await v1.POST('/v1/refunds/{id}/cancel', { params: { path: { id: refund.id } } }),
      ),
    onSuccess: async (canceled) => {
      queryClient.setQueryData(refundKey(refund.id), canceled);
      await queryClient.invalidateQueries({ queryKey: ['object-events', refund.id] });
      props.onCanceled();
      onClose();
    },
  });
  return (
    <Dialog title={t('refunds.cancel')} onClose={onClose}>
      <p>
        {t('refunds.cancelConfirm', {
          id: refund.id,
          amount: `${groupDigits(refund.amount)} ${refund.currency}`,
        })}
      </p>
      <ErrorMessage error={cancel.error} />
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate()}
        >
          {t('refunds.cancel')}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          {t('refunds.keep')}
        </button>
      </div>
    </Dialog>
  );
}
