import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, useState } from 'react';
import { Passkey, passkeysApi } from '../api/passkeys-api';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { CodeField } from './CodeField';
import { Dialog } from './Dialog';
import { ErrorMessage } from './ErrorMessage';
import { PasskeyError } from './PasskeyError';

const PASSKEYS_KEY = ['security-passkeys'] as const;

/**
 * Settings → Security: the user's passkeys, an additional second factor (docs/console.md,
 * Passkeys). Adding and removing one asks for a fresh authentication code first.
 */
export function PasskeysSection({ userId }: { userId: string | undefined }) {
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const passkeys = useQuery({ queryKey: [...PASSKEYS_KEY, userId], queryFn: passkeysApi.list });
  return (
    <>
      <div className="page-header">
        <h2>{t('passkeys.title')}</h2>
        <button type="button" onClick={() => setAdding(true)}>
          {t('passkeys.add')}
        </button>
      </div>
      <p>{t('passkeys.intro')}</p>
      {added && <p role="status">{t('passkeys.added', { name: added })}</p>}
      {passkeys.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={passkeys.error} />
      {passkeys.data && passkeys.data.length === 0 && <p>{t('passkeys.empty')}</p>}
      {passkeys.data && passkeys.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('passkeys.name')}</th>
              <th scope="col">{t('passkeys.created')}</th>
              <th scope="col">{t('passkeys.lastUsed')}</th>
              <th scope="col">{t('passkeys.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {passkeys.data.map((passkey) => (
              <tr key={passkey.id}>
                <th scope="row">{passkey.name}</th>
                <td>{formatDateTime(passkey.created_at)}</td>
                <td>
                  {passkey.last_used_at
                    ? formatDateTime(passkey.last_used_at)
                    : t('passkeys.neverUsed')}
                </td>
                <td>
                  <button
                    type="button"
                    className="danger"
                    aria-label={t('passkeys.removeNamed', { name: passkey.name })}
                    onClick={() => setRemoving(passkey)}
                  >
                    {t('passkeys.remove')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {adding && (
        <AddPasskeyDialog
          onClose={() => setAdding(false)}
          onAdded={(name) => {
            setAdding(false);
            setAdded(name);
          }}
        />
      )}
      {removing && <RemovePasskeyDialog target={removing} onClose={() => setRemoving(null)} />}
    </>
  );
}

function AddPasskeyDialog({
  onClose,
  onAdded,
}: {
  onClose: () => void;
  onAdded: (name: string) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(t('passkeys.defaultName'));
  const [code, setCode] = useState('');
  const add = useMutation({
    mutationFn: () => passkeysApi.add(name.trim(), code),
    onSuccess: async (passkey) => {
      await queryClient.invalidateQueries({ queryKey: PASSKEYS_KEY });
      onAdded(passkey.name);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Dialog title={t('passkeys.add')} onClose={onClose}>
      <form onSubmit={submit}>
        <p>{t('passkeys.addIntro')}</p>
        <label>
          {t('passkeys.name')}
          <input
            name="passkey-name"
            required
            maxLength={100}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <CodeField value={code} onChange={setCode} />
        <PasskeyError error={add.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            {t('apiKeys.cancel')}
          </button>
          <button type="submit" disabled={add.isPending}>
            {t('passkeys.continue')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RemovePasskeyDialog({ target, onClose }: { target: Passkey; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const remove = useMutation({
    mutationFn: () => passkeysApi.remove(target.id, code),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: PASSKEYS_KEY });
      onClose();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    remove.mutate();
  };
  return (
    <Dialog title={t('passkeys.removeTitle')} onClose={onClose}>
      <form onSubmit={submit}>
        <p>{t('passkeys.removeConfirm', { name: target.name })}</p>
        <CodeField value={code} onChange={setCode} />
        <ErrorMessage error={remove.error} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            {t('apiKeys.cancel')}
          </button>
          <button type="submit" className="danger" disabled={remove.isPending}>
            {t('passkeys.remove')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
