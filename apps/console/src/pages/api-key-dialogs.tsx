import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { API_SCOPES, ApiScope } from '../../../../libs/auth/src/permissions';
import { ApiKey, consoleApi, CreatedApiKey, RollExpiry } from '../api/console-api';
import { Dialog } from '../components/Dialog';
import { ErrorMessage } from '../components/ErrorMessage';
import { t } from '../i18n/t';
import { API_KEYS_QUERY_KEY, keyName } from './api-keys-shared';

function useRefreshKeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: API_KEYS_QUERY_KEY });
}

function DialogActions(props: {
  onCancel: () => void;
  submitLabel: string;
  busy: boolean;
  danger?: boolean;
}) {
  return (
    <div className="actions">
      <button type="button" className="secondary" onClick={props.onCancel}>
        {t('apiKeys.cancel')}
      </button>
      <button type="submit" className={props.danger ? 'danger' : undefined} disabled={props.busy}>
        {props.submitLabel}
      </button>
    </div>
  );
}

/** Production keys move real money: minting one asks for a fresh second factor. */
function LiveCodeField(props: { value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {t('apiKeys.liveCode')}
      <input
        autoComplete="one-time-code"
        inputMode="numeric"
        required
        value={props.value}
        onChange={(event) => props.onChange(event.target.value.trim())}
      />
      <span className="hint">{t('apiKeys.liveCodeHint')}</span>
    </label>
  );
}

export function CreateKeyDialog(props: {
  restricted: boolean;
  livemode: boolean;
  onClose: () => void;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const refresh = useRefreshKeys();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiScope[]>([]);
  const [code, setCode] = useState('');
  const [scopesMissing, setScopesMissing] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      consoleApi.createApiKey({
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(props.restricted ? { scopes } : {}),
        ...(props.livemode ? { two_factor_code: code } : {}),
      }),
    onSuccess: async (key) => {
      await refresh();
      props.onCreated(key);
    },
  });
  const toggle = (scope: ApiScope, checked: boolean) =>
    setScopes((current) => (checked ? [...current, scope] : current.filter((s) => s !== scope)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = props.restricted && scopes.length === 0;
    setScopesMissing(missing);
    if (!missing) create.mutate();
  };
  const title = props.restricted ? t('apiKeys.createRestricted') : t('apiKeys.createSecret');
  return (
    <Dialog title={title} onClose={props.onClose}>
      <form onSubmit={submit}>
        <label>
          {t('apiKeys.nameOptional')}
          <input value={name} maxLength={100} onChange={(event) => setName(event.target.value)} />
        </label>
        {props.restricted && (
          <fieldset>
            <legend>{t('apiKeys.scopesLegend')}</legend>
            {API_SCOPES.map((scope) => (
              <label key={scope} className="checkbox">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) => toggle(scope, event.target.checked)}
                />
                <code>{scope}</code>
              </label>
            ))}
            {scopesMissing && (
              <p className="error" role="alert">
                {t('apiKeys.scopesRequired')}
              </p>
            )}
          </fieldset>
        )}
        {props.livemode && <LiveCodeField value={code} onChange={setCode} />}
        <ErrorMessage error={create.error} />
        <DialogActions
          onCancel={props.onClose}
          submitLabel={t('apiKeys.create')}
          busy={create.isPending}
        />
      </form>
    </Dialog>
  );
}

const ROLL_EXPIRIES: Array<{ value: RollExpiry; label: Parameters<typeof t>[0] }> = [
  { value: 'now', label: 'apiKeys.expiresNow' },
  { value: '1h', label: 'apiKeys.expires1h' },
  { value: '24h', label: 'apiKeys.expires24h' },
  { value: '7d', label: 'apiKeys.expires7d' },
];

export function RollKeyDialog(props: {
  apiKey: ApiKey;
  livemode: boolean;
  onClose: () => void;
  onRolled: (key: CreatedApiKey) => void;
}) {
  const refresh = useRefreshKeys();
  const [expiresIn, setExpiresIn] = useState<RollExpiry>('1h');
  const [code, setCode] = useState('');
  const roll = useMutation({
    mutationFn: () =>
      consoleApi.rollApiKey(props.apiKey.id, {
        expires_in: expiresIn,
        ...(props.livemode ? { two_factor_code: code } : {}),
      }),
    onSuccess: async (key) => {
      await refresh();
      props.onRolled(key);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    roll.mutate();
  };
  return (
    <Dialog title={t('apiKeys.roll')} onClose={props.onClose}>
      <form onSubmit={submit}>
        <p>{t('apiKeys.rollIntro', { name: keyName(props.apiKey) })}</p>
        <fieldset>
          <legend>{t('apiKeys.rollLegend')}</legend>
          {ROLL_EXPIRIES.map((option) => (
            <label key={option.value} className="checkbox">
              <input
                type="radio"
                name="expires_in"
                value={option.value}
                checked={expiresIn === option.value}
                onChange={() => setExpiresIn(option.value)}
              />
              {t(option.label)}
            </label>
          ))}
        </fieldset>
        {props.livemode && <LiveCodeField value={code} onChange={setCode} />}
        <ErrorMessage error={roll.error} />
        <DialogActions
          onCancel={props.onClose}
          submitLabel={t('apiKeys.roll')}
          busy={roll.isPending}
        />
      </form>
    </Dialog>
  );
}

export function RevokeKeyDialog(props: { apiKey: ApiKey; onClose: () => void }) {
  const refresh = useRefreshKeys();
  const revoke = useMutation({
    mutationFn: () => consoleApi.revokeApiKey(props.apiKey.id),
    onSuccess: async () => {
      await refresh();
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
        <p>{t('apiKeys.revokeConfirm', { name: keyName(props.apiKey) })}</p>
        <ErrorMessage error={revoke.error} />
        <DialogActions
          onCancel={props.onClose}
          submitLabel={t('apiKeys.revoke')}
          busy={revoke.isPending}
          danger
        />
      </form>
    </Dialog>
  );
}

/** The only time the secret is shown: it lives in this component's props and nowhere else. */
export function SaveKeyDialog(props: { created: CreatedApiKey; onClose: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copyKey = async () => {
    try {
      await navigator.clipboard.writeText(props.created.api_key);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <Dialog title={t('apiKeys.saveTitle')} onClose={props.onClose}>
      <p>{t('apiKeys.saveIntro')}</p>
      <label>
        {t('apiKeys.secretKey')}
        <input
          className="secret"
          readOnly
          value={props.created.api_key}
          onFocus={(event) => event.target.select()}
        />
      </label>
      <p aria-live="polite" className={copy === 'failed' ? 'error' : 'hint'}>
        {copy === 'copied' ? t('apiKeys.copied') : copy === 'failed' ? t('apiKeys.copyFailed') : ''}
      </p>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => void copyKey()}>
          {t('apiKeys.copy')}
        </button>
        <button type="button" onClick={props.onClose}>
          {t('apiKeys.done')}
        </button>
      </div>
    </Dialog>
  );
}
