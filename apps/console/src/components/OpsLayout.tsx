import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, Outlet, useNavigate } from '@tanstack/react-router';
import { consoleApi } from '../api/console-api';
import { t } from '../i18n/t';
import { useOpsSession } from '../ops-session';
import { SESSION_QUERY_KEY } from '../session';
import { ErrorMessage } from './ErrorMessage';

/** The operator area's frame (/ops): its own session, navigation and sign-out. */
export function OpsLayout() {
  const session = useOpsSession();
  if (session.isPending || (!session.data && session.isFetching))
    return <p className="loading">{t('app.loading')}</p>;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) return <Navigate to="/sign-in" />;
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="app-header">
        <span className="merchant-name">{t('ops.title')}</span>
        <span className={session.data.livemode ? 'mode mode-live' : 'mode mode-test'}>
          {session.data.livemode ? t('app.liveMode') : t('app.testMode')}
        </span>
        <span>
          {session.data.operator.email} ·{' '}
          {session.data.role === 'admin' ? t('ops.roleAdmin') : t('ops.roleSupport')}
        </span>
        <OpsSignOutButton />
      </header>
      <div className="app-body">
        <nav aria-label={t('nav.label')}>
          <ul>
            <li>
              <Link to="/" activeOptions={{ exact: true }}>
                {t('ops.reviews')}
              </Link>
            </li>
            <li>
              <Link to="/merchants">{t('ops.merchants')}</Link>
            </li>
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

function OpsSignOutButton() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: consoleApi.signOut,
    onSettled: async () => {
      queryClient.clear();
      queryClient.setQueryData(SESSION_QUERY_KEY, null);
      await navigate({ to: '/sign-in' });
    },
  });
  return (
    <button type="button" className="secondary" onClick={() => signOut.mutate()}>
      {t('nav.signOut')}
    </button>
  );
}
