import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useId, useState } from 'react';
import { opsApi, PayoutReview } from '../../api/ops-api';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { useOpsSession } from '../../ops-session';

const REVIEWS_KEY = ['ops', 'payout-reviews'] as const;

/** Payouts held for review, oldest first; admins approve or reject them. */
export function PayoutReviewsPage() {
  const { data: session } = useOpsSession();
  const isAdmin = session?.role === 'admin';
  const queryClient = useQueryClient();
  const [rejecting, setRejecting] = useState<PayoutReview | null>(null);
  const reviews = useQuery({ queryKey: REVIEWS_KEY, queryFn: opsApi.payoutReviews });
  const approve = useMutation({
    mutationFn: opsApi.approve,
    onSettled: () => queryClient.invalidateQueries({ queryKey: REVIEWS_KEY }),
  });
  const payouts = reviews.data?.data;
  return (
    <section aria-labelledby="reviews-title">
      <h1 id="reviews-title">{t('ops.reviews')}</h1>
      <p>{t('ops.reviewsIntro')}</p>
      {reviews.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={reviews.error} />
      <ErrorMessage error={approve.error} />
      {payouts?.length === 0 && <p>{t('ops.reviewsEmpty')}</p>}
      {payouts && payouts.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('payouts.id')}</th>
              <th scope="col">{t('ops.merchant')}</th>
              <th scope="col" className="amount">
                {t('payouts.amount')}
              </th>
              <th scope="col">{t('payouts.network')}</th>
              <th scope="col">{t('payouts.toAddress')}</th>
              <th scope="col">{t('ops.reasons')}</th>
              <th scope="col">{t('payouts.created')}</th>
              {isAdmin && <th scope="col">{t('apiKeys.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {payouts.map((payout) => (
              <tr key={payout.id}>
                <th scope="row">
                  <code>{payout.id}</code>
                </th>
                <td>{payout.merchant.name}</td>
                <td className="amount">
                  {groupDigits(payout.amount)} {payout.currency}
                </td>
                <td>{payout.network}</td>
                <td>
                  <code className="hash">{payout.destination}</code>
                </td>
                <td>{payout.review_reasons.join(', ')}</td>
                <td>{formatDateTime(payout.created_at)}</td>
                {isAdmin && (
                  <td>
                    <div className="row-actions">
                      <button
                        type="button"
                        aria-label={t('ops.approveNamed', { id: payout.id })}
                        disabled={approve.isPending}
                        onClick={() => approve.mutate(payout.id)}
                      >
                        {t('ops.approve')}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={t('ops.rejectNamed', { id: payout.id })}
                        onClick={() => setRejecting(payout)}
                      >
                        {t('ops.reject')}
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rejecting && <RejectDialog payout={rejecting} onClose={() => setRejecting(null)} />}
    </section>
  );
}

function RejectDialog({ payout, onClose }: { payout: PayoutReview; onClose: () => void }) {
  const queryClient = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const reject = useMutation({
    mutationFn: () => opsApi.reject(payout.id, reason.trim()),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: REVIEWS_KEY });
      onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    reject.mutate();
  };
  return (
    <Dialog title={t('ops.rejectTitle')} onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          {t('ops.rejectIntro', {
            amount: `${groupDigits(payout.amount)} ${payout.currency}`,
            merchant: payout.merchant.name,
          })}
        </p>
        <label htmlFor={reasonId}>{t('ops.rejectReason')}</label>
        <textarea
          id={reasonId}
          required
          maxLength={500}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <ErrorMessage error={reject.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            {t('apiKeys.cancel')}
          </button>
          <button type="submit" className="danger" disabled={reject.isPending || !reason.trim()}>
            {t('ops.reject')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
