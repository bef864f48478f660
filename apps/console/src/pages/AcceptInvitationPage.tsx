import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { FormEvent, useState } from 'react';
import { consoleApi, Invitation, TwoFactorEnrolment } from '../api/console-api';
import { ErrorMessage } from '../components/ErrorMessage';
import { EnrolTwoFactor, RecoveryCodes } from '../components/TwoFactorEnrolmentSteps';
import { formatDateTime } from '../format';
import { t } from '../i18n/t';
import { reloadSession } from '../session';

/** The token travels in the fragment, which browsers never send to a server or in a Referer. */
function tokenFromFragment(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('token');
}

/**
 * Set a password, enrol TOTP (mandatory), save the recovery codes; or, for an address that has
 * an account already, sign in to it (password and code) to join the invitation's merchant.
 */
export function AcceptInvitationPage() {
  const [token] = useState(tokenFromFragment);
  const [enrolment, setEnrolment] = useState<TwoFactorEnrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <main className="centered" id="main">
      <div className="card">
        {!token ? (
          <>
            <h1>{t('invitation.title')}</h1>
            <p role="alert">{t('invitation.missingToken')}</p>
          </>
        ) : recoveryCodes ? (
          <RecoveryCodes codes={recoveryCodes} />
        ) : enrolment ? (
          <EnrolTwoFactor enrolment={enrolment} onEnrolled={setRecoveryCodes} />
        ) : (
          <SetPassword token={token} onAccepted={setEnrolment} />
        )}
      </div>
    </main>
  );
}

function InvitationSummary({ invitation }: { invitation: Invitation }) {
  return (
    <>
      <p>
        {invitation.realm === 'operator' || !invitation.merchant_name
          ? t('invitation.operatorSummary', { email: invitation.email })
          : t('invitation.summary', {
              merchant: invitation.merchant_name,
              role: invitation.role ? t(`roles.${invitation.role}`) : '',
              email: invitation.email,
            })}
      </p>
      <p>{t('invitation.expires', { date: formatDateTime(invitation.expires_at) })}</p>
    </>
  );
}

function SetPassword(props: {
  token: string;
  onAccepted: (enrolment: TwoFactorEnrolment) => void;
}) {
  const [password, setPassword] = useState('');
  const invitation = useQuery({
    queryKey: ['invitation', props.token],
    queryFn: () => consoleApi.lookupInvitation(props.token),
  });
  const accept = useMutation({
    mutationFn: () => consoleApi.acceptInvitation(props.token, password),
    onSuccess: (result) => props.onAccepted(result.two_factor_enrolment),
  });
  // An operator invitation always makes a new account (docs/console.md).
  if (invitation.data?.account_exists && invitation.data.realm === 'merchant') {
    return <SignInToAccept token={props.token} invitation={invitation.data} />;
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  return (
    <form onSubmit={submit}>
      <h1>{t('invitation.title')}</h1>
      {invitation.isPending && <p>{t('app.loading')}</p>}
      <ErrorMessage error={invitation.error} />
      {invitation.data && (
        <>
          <InvitationSummary invitation={invitation.data} />
          <input
            type="email"
            name="email"
            autoComplete="username"
            value={invitation.data.email}
            readOnly
            hidden
          />
          <label>
            {t('invitation.password')}
            <input
              type="password"
              name="password"
              autoComplete="new-password"
              required
              minLength={12}
              aria-describedby="password-hint"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </label>
          <p className="hint" id="password-hint">
            {t('invitation.passwordHint')}
          </p>
          <ErrorMessage error={accept.error} />
          <button type="submit" disabled={accept.isPending}>
            {t('invitation.submit')}
          </button>
        </>
      )}
    </form>
  );
}

/** The invitee has an account: its password and second factor add the merchant to it. */
function SignInToAccept(props: { token: string; invitation: Invitation }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const accept = useMutation({
    mutationFn: () => consoleApi.acceptWithAccount(props.token, password, code),
    // Signed in at the new merchant: the frame must not use a cached "signed out".
    onSuccess: () => reloadSession(queryClient),
  });
  const { invitation } = props;
  if (accept.isSuccess) {
    return (
      <>
        <h1>{t('invitation.acceptedTitle')}</h1>
        <p role="status">
          {t('invitation.acceptedIntro', {
            merchant: invitation.merchant_name ?? '',
            role: invitation.role ? t(`roles.${invitation.role}`) : '',
          })}
        </p>
        <Link to="/">{t('invitation.openConsole')}</Link>
      </>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!accept.isPending) accept.mutate();
  };
  return (
    <form onSubmit={submit}>
      <h1>{t('invitation.title')}</h1>
      <InvitationSummary invitation={invitation} />
      <p>
        {t('invitation.existingIntro', {
          email: invitation.email,
          merchant: invitation.merchant_name ?? '',
        })}
      </p>
      <label>
        {t('signIn.email')}
        <input
          type="email"
          name="email"
          autoComplete="username"
          value={invitation.email}
          readOnly
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
      <label>
        {t('twoFactor.code')}
        <input
          name="code"
          autoComplete="one-time-code"
          required
          minLength={6}
          maxLength={20}
          value={code}
          onChange={(event) => setCode(event.target.value)}
        />
      </label>
      <ErrorMessage error={accept.error} />
      <button type="submit" disabled={accept.isPending}>
        {t('invitation.acceptSubmit')}
      </button>
    </form>
  );
}
