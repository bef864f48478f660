import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { FormEvent, useId, useState } from 'react';
import { OpsMerchant, OpsMerchantKey, opsApi } from '../../api/ops-api';
import { Dialog } from '../../components/Dialog';
import { ErrorMessage } from '../../components/ErrorMessage';
import { formatDateTime } from '../../format';
import { t } from '../../i18n/t';
import { useOpsSession } from '../../ops-session';
import { keyName } from '../api-keys-shared';

/** One merchant with its API keys (hints only), "View as merchant", and revoking a key (admins). */
export function MerchantDetailPage() {
  const { merchantId } = useParams({ from: '/signed-in/merchants/$merchantId' });
  const [viewing, setViewing] = useState(false);
  const [revoking, setRevoking] = useState<OpsMerchantKey | null>(null);
  const operator = useOpsSession();
  const merchant = useQuery({
    queryKey: ['ops', 'merchant', merchantId],
    queryFn: () => opsApi.merchant(merchantId),
  });
  const data = merchant.data;
  // The server refuses support operators (403); the button is not offered to them.
  const mayRevoke = operator.data?.role === 'admin';
  return (
    <section aria-labelledby="merchant-title">
      <p>
        <Link to="/merchants">{t('ops.backToMerchants')}</Link>
      </p>
      <div className="page-header">
        <h1 id="merchant-title">{data?.name ?? merchantId}</h1>
        {data && (
          <button type="button" onClick={() => setViewing(true)}>
            {t('ops.viewAs')}
          </button>
        )}
      </div>
      {merchant.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={merchant.error} />
      {data && (
        <>
          <dl className="details">
            <dt>{t('ops.merchantId')}</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
            <dt>{t('ops.kind')}</dt>
            <dd>{data.kind}</dd>
            <dt>{t('payouts.created')}</dt>
            <dd>{formatDateTime(data.created_at)}</dd>
          </dl>
          <h2>{t('apiKeys.title')}</h2>
          {data.keys.length === 0 ? (
            <p>{t('apiKeys.empty')}</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('apiKeys.name')}</th>
                  <th scope="col">{t('apiKeys.keyHint')}</th>
                  <th scope="col">{t('apiKeys.scopes')}</th>
                  <th scope="col">{t('apiKeys.created')}</th>
                  <th scope="col">{t('apiKeys.lastUsed')}</th>
                  <th scope="col">{t('ops.keyState')}</th>
                  {mayRevoke && <th scope="col">{t('apiKeys.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {data.keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row">{key.name ?? t('apiKeys.unnamed')}</th>
                    <td>
                      <code className="key-hint">{key.hint}</code>
                    </td>
                    <td>{key.scopes === null ? t('apiKeys.fullAccess') : key.scopes.join(', ')}</td>
                    <td>{formatDateTime(key.created_at)}</td>
                    <td>
                      {key.last_used_at ? formatDateTime(key.last_used_at) : t('apiKeys.never')}
                    </td>
                    <td>
                      {key.revoked_at
                        ? t('ops.revokedOn', { date: formatDateTime(key.revoked_at) })
                        : key.expires_at
                          ? t('ops.expiresOn', { date: formatDateTime(key.expires_at) })
                          : t('ops.active')}
                    </td>
                    {mayRevoke && (
                      <td>
                        {!key.revoked_at && (
                          <button
                            type="button"
                            className="danger"
                            aria-label={t('apiKeys.revokeNamed', { name: keyName(key) })}
                            onClick={() => setRevoking(key)}
                          >
                            {t('apiKeys.revoke')}
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {viewing && data && <ViewAsDialog merchant={data} onClose={() => setViewing(false)} />}
      {revoking && data && (
        <RevokeKeyDialog merchant={data} apiKey={revoking} onClose={() => setRevoking(null)} />
      )}
    </section>
  );
}

/** POST /ops/api/merchants/:id/keys/:keyId/revoke: audited in the merchant's log and ours. */
function RevokeKeyDialog(props: {
  merchant: OpsMerchant;
  apiKey: OpsMerchantKey;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => opsApi.revokeKey(props.merchant.id, props.apiKey.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['ops', 'merchant', props.merchant.id] });
      props.onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    revoke.mutate();
  };
  return (
    <Dialog title={t('apiKeys.revoke')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>
          {t('ops.revokeKeyIntro', {
            name: `${keyName(props.apiKey)} (${props.apiKey.hint})`,
            merchant: props.merchant.name,
          })}
        </p>
        <ErrorMessage error={revoke.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose}>
            {t('apiKeys.cancel')}
          </button>
          <button type="submit" className="danger" disabled={revoke.isPending}>
            {t('apiKeys.revoke')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ViewAsDialog({ merchant, onClose }: { merchant: OpsMerchant; onClose: () => void }) {
  const reasonId = useId();
  const minutesId = useId();
  const [reason, setReason] = useState('');
  const [minutes, setMinutes] = useState('15');
  const start = useMutation({
    mutationFn: () => opsApi.startViewAs(merchant.id, reason.trim(), Number.parseInt(minutes, 10)),
    // The merchant console is another app base: a full load, with the session now viewing.
    onSuccess: () => window.location.assign('/console/'),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate();
  };
  return (
    <Dialog title={t('ops.viewAsTitle', { merchant: merchant.name })} onClose={onClose}>
      <form onSubmit={submit}>
        <p>{t('ops.viewAsIntro')}</p>
        <label htmlFor={reasonId}>{t('ops.viewAsReason')}</label>
        <textarea
          id={reasonId}
          required
          minLength={10}
          maxLength={500}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <label htmlFor={minutesId}>{t('ops.viewAsMinutes')}</label>
        <input
          id={minutesId}
          type="number"
          min={1}
          max={60}
          required
          value={minutes}
          onChange={(event) => setMinutes(event.target.value)}
        />
        <ErrorMessage error={start.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            {t('apiKeys.cancel')}
          </button>
          <button type="submit" disabled={start.isPending || reason.trim().length < 10}>
            {t('ops.viewAsStart')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
