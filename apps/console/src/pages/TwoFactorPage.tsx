import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleApi } from '../api/console-api';
import { CodeField } from '../components/CodeField';
import { ErrorMessage } from '../components/ErrorMessage';
import { t } from '../i18n/t';
import { reloadSession } from '../session';

export function TwoFactorPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const verify = useMutation({
    mutationFn: () => consoleApi.verifyTwoFactor(code),
    onSuccess: async () => {
      await reloadSession(queryClient);
      await navigate({ to: '/' });
    },
  });
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
      </form>
    </main>
  );
}
