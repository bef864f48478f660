import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleRequest } from '../../api/http';
import { dataOrThrow, v1 } from '../../api/v1';
import { Refund } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { DetailList } from '../../components/DetailLayout';
import { ErrorMessage } from '../../components/ErrorMessage';
import { FieldError, FormError } from '../../components/FieldError';
import { formatDateTime, groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';
import { reasonLabel } from '../payments/unmatched-transfer-columns';

// The fields on the form; any other refusal (`amount`, `id`: not confirmed yet, refunded
// already) is said above the button.
const FIELDS = ['to_address', 'reason', 'two_factor_code'] as const;

/**
 * A refund of one unmatched transfer, sent to POST /console/api/unmatched-transfers/{id}/refunds
 * with a fresh authentication code (the /v1 route refuses console sessions). Its whole amount,
 * to the address given (required: no page asks the customer for it). The idempotency key is made
 * once per form, so a double click or a retry after a lost answer replays the first refund.
 */
export function RefundTransferPage() {
  const { transferId } = useParams({ from: '/signed-in/payments/unmatched/$transferId/refund' });
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'refunds:write');
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const [toAddress, setToAddress] = useState('');
  const [reason, setReason] = useState('');
  const [code, setCode] = useState('');
  const transfer = useQuery({
    queryKey: ['unmatched-transfer', transferId],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/unmatched-transfers/{id}', { params: { path: { id: transferId } } }),
      ),
    enabled: allowed && can(session, 'checkout_sessions:read'),
  });
  const create = useMutation({
    mutationFn: () =>
      consoleRequest<Refund>('POST', `/console/api/unmatched-transfers/${transferId}/refunds`, {
        to_address: toAddress.trim(),
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        two_factor_code: code,
        idempotency_key: idempotencyKey,
      }),
    onSuccess: (refund) => navigate({ to: '/refunds/$refundId', params: { refundId: refund.id } }),
  });
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  const error = create.error;
  const data = transfer.data;
  return (
    <section aria-labelledby="refund-transfer-title">
      <p>
        <Link to="/payments/unmatched">{t('unmatched.backToList')}</Link>
      </p>
      <h1 id="refund-transfer-title">
        {t('unmatched.refundTitle')} <code>{transferId}</code>
      </h1>
      <ErrorMessage error={transfer.error} />
      {data && (
        <>
          <p>
            {t('unmatched.refundIntro', {
              amount: groupDigits(data.amount),
              currency: data.currency,
              network: data.network,
              from: data.from_address,
            })}
          </p>
          <DetailList
            items={[
              [t('unmatched.reason'), reasonLabel(data.reason)],
              [t('unmatched.status'), data.status],
              [
                t('unmatched.payment'),
                <Link to="/payments/$sessionId" params={{ sessionId: data.session_id }}>
                  <code>{data.session_id}</code>
                </Link>,
              ],
              [t('unmatched.txHash'), <code className="hash">{data.tx_hash}</code>],
              [t('unmatched.seen'), formatDateTime(data.created_at)],
            ]}
          />
        </>
      )}
      <form onSubmit={submit}>
        <label>
          {t('unmatched.address')}
          <input
            name="to_address"
            autoComplete="off"
            spellCheck={false}
            required
            value={toAddress}
            onChange={(event) => setToAddress(event.target.value)}
          />
          <span className="hint">{t('unmatched.addressHint')}</span>
          <FieldError error={error} field="to_address" />
        </label>
        <label>
          {t('refunds.reasonOptional')}
          <input
            name="reason"
            maxLength={500}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <FieldError error={error} field="reason" />
        </label>
        <label>
          {t('refunds.authenticationCode')}
          <input
            name="two_factor_code"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            value={code}
            onChange={(event) => setCode(event.target.value.trim())}
          />
          <span className="hint">{t('refunds.authenticationCodeHint')}</span>
          <FieldError error={error} field="two_factor_code" />
        </label>
        <FormError error={error} fields={FIELDS} />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {t('unmatched.submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
