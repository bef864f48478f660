import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { ApiError } from '../api/http';
import { passwordResetApi } from '../api/password-reset-api';
import { CodeField } from '../components/CodeField';
import { describeError } from '../components/ErrorMessage';
import { t } from '../i18n/t';

/** The token travels in the fragment, which browsers never send to a server or in a Referer. */
function tokenFromFragment(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('token');
}

/** This page's wording for the answers a reset gets; the rest as everywhere else. */
function resetError(error: unknown): string {
  if (error instanceof ApiError && error.code === 'resource_missing') {
    return t('resetPassword.gone');
  }
  if (error instanceof ApiError && error.code === 'authentication_failed') {
    return t('resetPassword.wrongCode');
  }
  return describeError(error);
}

function ResetError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {resetError(error)}
    </p>
  );
}

/** A reset link's page: a new password and, when the account has it, the authentication code. */
export function ResetPasswordPage() {
  const [token] = useState(tokenFromFragment);
  return (
    <main className="centered" id="main">
      <div className="card">
        <h1>{t('resetPassword.title')}</h1>
        {token ? (
          <ResetForm token={token} />
        ) : (
          <p role="alert">{t('resetPassword.missingToken')}</p>
        )}
      </div>
    </main>
  );
}

function ResetForm({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const reset = useQuery({
    queryKey: ['password-reset', token],
    queryFn: () => passwordResetApi.lookup(token),
    retry: false,
  });
  const complete = useMutation({
    mutationFn: () =>
      passwordResetApi.complete(token, password, reset.data?.two_factor_required ? code : null),
  });
  if (complete.isSuccess) {
    return (
      <>
        <p role="status">{t('resetPassword.done')}</p>
        <Link to="/sign-in">{t('resetPassword.signIn')}</Link>
      </>
    );
  }
  if (reset.isPending) return <p>{t('app.loading')}</p>;
  if (reset.error) return <ResetError error={reset.error} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    complete.mutate();
  };
  return (
    <form onSubmit={submit}>
      <p>{t('resetPassword.for', { email: reset.data.email })}</p>
      <label>
        {t('resetPassword.newPassword')}
        <input
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          minLength={12}
          maxLength={128}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <span className="hint">{t('resetPassword.passwordHint')}</span>
      </label>
      {reset.data.two_factor_required && (
        <>
          <CodeField value={code} onChange={setCode} />
          <span className="hint">{t('resetPassword.codeHint')}</span>
        </>
      )}
      <ResetError error={complete.error} />
      <button type="submit" disabled={complete.isPending}>
        {t('resetPassword.submit')}
      </button>
    </form>
  );
}
