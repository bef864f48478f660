import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiKey, consoleApi, CreatedApiKey } from '../api/console-api';
import { AccessDenied } from '../components/AccessDenied';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { can, useSession } from '../session';
import { API_KEYS_QUERY_KEY, keyName } from './api-keys-shared';
import { CreateKeyDialog, RevokeKeyDialog, RollKeyDialog, SaveKeyDialog } from './api-key-dialogs';

type OpenDialog =
  | { kind: 'create'; restricted: boolean }
  | { kind: 'roll'; key: ApiKey }
  | { kind: 'revoke'; key: ApiKey }
  | { kind: 'save'; key: CreatedApiKey }
  | null;

export function ApiKeysPage() {
  const { data: session } = useSession();
  const allowed = can(session, 'api_keys:read');
  const mayWrite = can(session, 'api_keys:write');
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const keys = useQuery({
    queryKey: [...API_KEYS_QUERY_KEY, session?.merchant?.id],
    queryFn: consoleApi.apiKeys,
    enabled: allowed,
  });
  if (!allowed) return <AccessDenied merchantName={session?.merchant?.name ?? ''} />;
  const close = () => setDialog(null);
  const showSecret = (key: CreatedApiKey) => setDialog({ kind: 'save', key });
  return (
    <section aria-labelledby="api-keys-title">
      <div className="page-header">
        <h1 id="api-keys-title">{t('apiKeys.title')}</h1>
        {mayWrite && (
          <div className="actions">
            <button type="button" onClick={() => setDialog({ kind: 'create', restricted: false })}>
              {t('apiKeys.createSecret')}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => setDialog({ kind: 'create', restricted: true })}
            >
              {t('apiKeys.createRestricted')}
            </button>
          </div>
        )}
      </div>
      <p>{t('apiKeys.intro')}</p>
      {keys.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={keys.error} />
      {keys.data?.length === 0 && <p>{t('apiKeys.empty')}</p>}
      {keys.data && keys.data.length > 0 && (
        <KeysTable
          keys={keys.data}
          mayWrite={mayWrite}
          onRoll={(key) => setDialog({ kind: 'roll', key })}
          onRevoke={(key) => setDialog({ kind: 'revoke', key })}
        />
      )}
      {dialog?.kind === 'create' && (
        <CreateKeyDialog
          restricted={dialog.restricted}
          livemode={session?.livemode ?? false}
          onClose={close}
          onCreated={showSecret}
        />
      )}
      {dialog?.kind === 'roll' && (
        <RollKeyDialog
          apiKey={dialog.key}
          livemode={session?.livemode ?? false}
          onClose={close}
          onRolled={showSecret}
        />
      )}
      {dialog?.kind === 'revoke' && <RevokeKeyDialog apiKey={dialog.key} onClose={close} />}
      {dialog?.kind === 'save' && <SaveKeyDialog created={dialog.key} onClose={close} />}
    </section>
  );
}

function KeysTable(props: {
  keys: ApiKey[];
  mayWrite: boolean;
  onRoll: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{t('apiKeys.name')}</th>
          <th scope="col">{t('apiKeys.keyHint')}</th>
          <th scope="col">{t('apiKeys.scopes')}</th>
          <th scope="col">{t('apiKeys.created')}</th>
          <th scope="col">{t('apiKeys.lastUsed')}</th>
          <th scope="col">{t('apiKeys.expires')}</th>
          {props.mayWrite && <th scope="col">{t('apiKeys.actions')}</th>}
        </tr>
      </thead>
      <tbody>
        {props.keys.map((key) => (
          <tr key={key.id}>
            <th scope="row">{keyName(key)}</th>
            <td>
              <code className="key-hint">{key.key_hint}</code>
            </td>
            <td>
              {key.scopes === null ? (
                t('apiKeys.fullAccess')
              ) : (
                <ul className="scopes">
                  {key.scopes.map((scope) => (
                    <li key={scope}>
                      <code>{scope}</code>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>{formatDateTime(key.created_at)}</td>
            <td>{key.last_used_at ? formatDateTime(key.last_used_at) : t('apiKeys.never')}</td>
            <td>
              {key.status === 'revoked'
                ? t('apiKeys.revoked')
                : key.status === 'expired'
                  ? t('apiKeys.expired')
                  : key.expires_at
                    ? formatDateTime(key.expires_at)
                    : t('apiKeys.never')}
            </td>
            {props.mayWrite && (
              <td>
                <div className="row-actions">
                  {key.status === 'active' && (
                    <>
                      <button
                        type="button"
                        className="secondary"
                        aria-label={t('apiKeys.rollNamed', { name: keyName(key) })}
                        onClick={() => props.onRoll(key)}
                      >
                        {t('apiKeys.roll')}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={t('apiKeys.revokeNamed', { name: keyName(key) })}
                        onClick={() => props.onRevoke(key)}
                      >
                        {t('apiKeys.revoke')}
                      </button>
                    </>
                  )}
                </div>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
