import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleApi } from '../api/console-api';
import { passkeysApi } from '../api/passkeys-api';
import { CodeField } from '../components/CodeField';
import { ErrorMessage } from '../components/ErrorMessage';
import { PasskeyError } from '../components/PasskeyError';
import { t } from '../i18n/t';
import { reloadSession } from '../session';

export function TwoFactorPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const signedIn = async () => {
    await reloadSession(queryClient);
    await navigate({ to: '/' });
  };
  const verify = useMutation({
    mutationFn: () => consoleApi.verifyTwoFactor(code),
    onSuccess: signedIn,
  });
  // Offered only when the account has a passkey and the browser can use one.
  const passkeyAvailable = useQuery({
    queryKey: ['sign-in-passkey'],
    queryFn: passkeysApi.signInAvailable,
    retry: false,
    staleTime: 0,
  });
  const withPasskey = useMutation({ mutationFn: passkeysApi.signIn, onSuccess: signedIn });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  return (
    <main className="centered" id="main">
      <form className="card" onSubmit={submit}>
        <h1>{t('twoFactor.title')}</h1>
        <p>{t('twoFactor.intro')}</p>
        <CodeField value={code} onChange={setCode} />
        <ErrorMessage error={verify.error} />
        <button type="submit" disabled={verify.isPending}>
          {t('twoFactor.submit')}
        </button>
        {passkeyAvailable.data && (
          <>
            <p>{t('twoFactor.orPasskey')}</p>
            <PasskeyError error={withPasskey.error} />
            <button
              type="button"
              className="secondary"
              disabled={withPasskey.isPending}
              onClick={() => withPasskey.mutate()}
            >
              {t('twoFactor.usePasskey')}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
