import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleRequest } from '../../api/http';
import { dataOrThrow, v1 } from '../../api/v1';
import { Refund } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { ErrorMessage } from '../../components/ErrorMessage';
import { FieldError, FormError } from '../../components/FieldError';
import { groupDigits } from '../../format';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const FIELDS = ['amount', 'to_address', 'reason', 'two_factor_code'] as const;

/**
 * A refund of one payment, sent to POST /console/api/checkout-sessions/{id}/refunds with a fresh
 * authentication code (the /v1 route refuses console sessions). The idempotency key is made once
 * per form, so a double click or a retry after a lost answer replays the first refund.
 */
export function CreateRefundPage() {
  const { sessionId } = useParams({ from: '/signed-in/payments/$sessionId/refund' });
  const { data: session } = useSession();
  const navigate = useNavigate();
  const allowed = can(session, 'refunds:write');
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  // The amount stays the decimal string typed: money is never a JS number.
  const [amount, setAmount] = useState('');
  const [toAddress, setToAddress] = useState('');
  const [reason, setReason] = useState('');
  const [code, setCode] = useState('');
  const checkout = useQuery({
    queryKey: ['checkout-session', sessionId],
    queryFn: async () =>
      dataOrThrow(
        await v1.GET('/v1/checkout/sessions/{id}', { params: { path: { id: sessionId } } }),
      ),
    enabled: allowed && can(session, 'checkout_sessions:read'),
  });
  const create = useMutation({
    mutationFn: () =>
      consoleRequest<Refund>('POST', `/console/api/checkout-sessions/${sessionId}/refunds`, {
        ...(amount.trim() ? { amount: amount.trim() } : {}),
        ...(toAddress.trim() ? { to_address: toAddress.trim() } : {}),
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
  const payment = checkout.data;
  return (
    <section aria-labelledby="create-refund-title">
      <p>
        <Link to="/payments/$sessionId" params={{ sessionId }}>
          {t('refunds.backToPayment', { id: sessionId })}
        </Link>
      </p>
      <h1 id="create-refund-title">{t('refunds.createTitle')}</h1>
      <ErrorMessage error={checkout.error} />
      {payment && (
        <p>
          {t('refunds.createIntro', {
            received: groupDigits(payment.amount_received),
            currency: payment.currency,
            network: payment.network,
          })}
        </p>
      )}
      <form onSubmit={submit}>
        <label>
          {t('refunds.amountOptional')}
          <input
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
          />
          <span className="hint">{t('refunds.amountHint')}</span>
          <FieldError error={error} field="amount" />
        </label>
        <label>
          {t('refunds.address')}
          <input
            name="to_address"
            autoComplete="off"
            spellCheck={false}
            value={toAddress}
            onChange={(event) => setToAddress(event.target.value)}
          />
          <span className="hint">{t('refunds.addressHint')}</span>
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
            {t('refunds.submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
