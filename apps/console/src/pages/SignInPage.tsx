import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleApi, TwoFactorEnrolment } from '../api/console-api';
import { realm } from '../base-path';
import { ErrorMessage } from '../components/ErrorMessage';
import { EnrolTwoFactor, RecoveryCodes } from '../components/TwoFactorEnrolmentSteps';
import { t } from '../i18n/t';

export function SignInPage() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const signIn = useMutation({
    mutationFn: () => consoleApi.signIn(email, password, realm),
    // Two-factor authentication is mandatory: a password alone never signs anyone in, and an
    // account without a second factor enrols one now.
    onSuccess: async (result) => {
      if (result.two_factor_enrolment) setEnrolment(result.two_factor_enrolment);
      else await navigate({ to: '/sign-in/two-factor' });
    },
  });
  if (enrolment) {
    return (
      <main className="centered" id="main">
        <div className="card">
          {recoveryCodes ? (
            <RecoveryCodes codes={recoveryCodes} />
          ) : (
            <EnrolTwoFactor enrolment={enrolment} onEnrolled={setRecoveryCodes} />
          )}
        </div>
      </main>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="centered" id="main">
      <form className="card" onSubmit={submit}>
        <h1>{t('signIn.title')}</h1>
        <label>
          {t('signIn.email')}
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          {t('signIn.password')}
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        <ErrorMessage error={signIn.error} />
        <button type="submit" disabled={signIn.isPending}>
          {t('signIn.submit')}
        </button>
        <Link to="/forgot-password">{t('signIn.forgotPassword')}</Link>
      </form>
    </main>
  );
}
