import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { CURRENCIES, NETWORK_NAMES } from '../../../../../libs/chains/src/networks/network.types';
import { consoleRequest } from '../../api/http';
import { Payout } from '../../api/v1-types';
import { AccessDenied } from '../../components/AccessDenied';
import { FieldError, FormError } from '../../components/FieldError';
import { t } from '../../i18n/t';
import { can, useSession } from '../../session';

const FIELDS = [
  'amount',
  'currency',
  'network',
  'to_address',
  'description',
  'two_factor_code',
] as const;

/**
 * A payout from the console: sent to POST /console/api/payouts with a fresh authentication
 * code. The idempotency key is made once per form, so a double click or a retry after a lost
 * answer replays the first payout instead of paying twice.
 */
export function CreatePayoutPage() {
  const { data: session } = useSession();
  const navigate = useNavigate();
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  // The amount stays the decimal string typed: money is never a JS number.
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState<string>(CURRENCIES[0]);
  const [network, setNetwork] = useState<string>(NETWORK_NAMES[0]);
  const [toAddress, setToAddress] = useState('');
  const [description, setDescription] = useState('');
  const [code, setCode] = useState('');
  const create = useMutation({
    mutationFn: () =>
      consoleRequest<Payout>('POST', '/console/api/payouts', {
        amount: amount.trim(),
        currency,
        network,
        to_address: toAddress.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        two_factor_code: code,
        idempotency_key: idempotencyKey,
      }),
    onSuccess: (payout) => navigate({ to: '/payouts/$payoutId', params: { payoutId: payout.id } }),
  });
  if (!can(session, 'payouts:write')) {
    return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!create.isPending) create.mutate();
  };
  const error = create.error;
  return (
    <section aria-labelledby="create-payout-title">
      <p>
        <Link to="/payouts">{t('payouts.back')}</Link>
      </p>
      <h1 id="create-payout-title">{t('payouts.createTitle')}</h1>
      <form onSubmit={submit}>
        <label>
          {t('payouts.amount')}
          <input
            name="amount"
            inputMode="decimal"
            required
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
          />
          <FieldError error={error} field="amount" />
        </label>
        <label>
          {t('payouts.currency')}
          <select value={currency} onChange={(event) => setCurrency(event.target.value)}>
            {CURRENCIES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
          <FieldError error={error} field="currency" />
        </label>
        <label>
          {t('payouts.network')}
          <select value={network} onChange={(event) => setNetwork(event.target.value)}>
            {NETWORK_NAMES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
          <FieldError error={error} field="network" />
        </label>
        <label>
          {t('payouts.destinationAddress')}
          <input
            name="to_address"
            required
            autoComplete="off"
            spellCheck={false}
            value={toAddress}
            onChange={(event) => setToAddress(event.target.value)}
          />
          <FieldError error={error} field="to_address" />
        </label>
        <label>
          {t('payouts.description')}
          <input
            name="description"
            maxLength={500}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
          <FieldError error={error} field="description" />
        </label>
        <label>
          {t('payouts.authenticationCode')}
          <input
            name="two_factor_code"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
            value={code}
            onChange={(event) => setCode(event.target.value.trim())}
          />
          <span className="hint">{t('payouts.authenticationCodeHint')}</span>
          <FieldError error={error} field="two_factor_code" />
        </label>
        <FormError error={error} fields={FIELDS} />
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {t('payouts.create')}
          </button>
        </div>
      </form>
    </section>
  );
}
