import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, LinkProps, Navigate, Outlet, useNavigate } from '@tanstack/react-router';
import { consoleApi, ConsoleSession } from '../api/console-api';
import { t } from '../i18n/t';
import { can, SESSION_QUERY_KEY, useSession } from '../session';
import { applySubMerchantContext, canActForSubMerchants } from '../sub-merchant-context';
import { ErrorMessage } from './ErrorMessage';
import { SubMerchantBanner, SubMerchantSwitcher } from './SubMerchantSwitcher';
import { ViewAsBanner } from './ViewAsBanner';

/** The signed-in frame: navigation by permission, merchant and sub-merchant switchers, sign-out. */
export function AppLayout() {
  const session = useSession();
  if (session.isPending || (!session.data && session.isFetching))
    return <p className="loading">{t('app.loading')}</p>;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) return <Navigate to="/sign-in" />;
  // Before any page below renders and fetches: their calls carry this tab's sub-merchant.
  applySubMerchantContext(session.data);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="app-header">
        <span className="merchant-name">{session.data.merchant?.name ?? t('app.title')}</span>
        <span className={session.data.livemode ? 'mode mode-live' : 'mode mode-test'}>
          {session.data.livemode ? t('app.liveMode') : t('app.testMode')}
        </span>
        <div className="header-switchers">
          <SubMerchantSwitcher session={session.data} />
          <MerchantSwitcher session={session.data} />
        </div>
        <SignOutButton />
      </header>
      <ViewAsBanner session={session.data} />
      <SubMerchantBanner session={session.data} />
      <div className="app-body">
        <Navigation session={session.data} />
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

function Navigation({ session }: { session: ConsoleSession }) {
  return (
    <nav aria-label={t('nav.label')}>
      <ul>
        <li>
          <Link to="/" activeOptions={{ exact: true }}>
            {t('nav.home')}
          </Link>
        </li>
        {can(session, 'balances:read') && (
          <li>
            <Link to="/balances">{t('nav.balances')}</Link>
          </li>
        )}
        {can(session, 'checkout_sessions:read') && (
          <li>
            <Link to="/payments">{t('nav.payments')}</Link>
          </li>
        )}
        {can(session, 'payouts:read') && (
          <li>
            <Link to="/payouts">{t('nav.payouts')}</Link>
          </li>
        )}
        {can(session, 'refunds:read') && (
          <li>
            <Link to="/refunds">{t('nav.refunds')}</Link>
          </li>
        )}
        {canActForSubMerchants(session) && (
          <li>
            <Link to="/sub-merchants">{t('nav.subMerchants')}</Link>
          </li>
        )}
        <NavigationGroup
          label={t('nav.developers')}
          links={[
            {
              to: '/developers/api-keys',
              label: t('nav.apiKeys'),
              shown: can(session, 'api_keys:read'),
            },
            {
              to: '/developers/webhooks',
              label: t('nav.webhooks'),
              shown: can(session, 'webhook_endpoints:read'),
            },
            {
              to: '/developers/events',
              label: t('nav.events'),
              shown: can(session, 'events:read'),
            },
            {
              to: '/developers/request-log',
              label: t('nav.requestLog'),
              shown: can(session, 'request_log:read'),
            },
          ]}
        />
        <NavigationGroup
          label={t('nav.settings')}
          links={[
            { to: '/settings/team', label: t('nav.team'), shown: can(session, 'team:read') },
            // Every member manages its own sessions; an operator's read-only view has none here.
            { to: '/settings/security', label: t('nav.security'), shown: !session.view_as },
            {
              to: '/settings/activity',
              label: t('nav.activity'),
              shown: can(session, 'audit_log:read'),
            },
          ]}
        />
      </ul>
    </nav>
  );
}

interface NavigationLink {
  to: LinkProps['to'];
  label: string;
  shown: boolean;
}

/** A titled group of links, shown when the role allows at least one of them. */
function NavigationGroup({ label, links }: { label: string; links: NavigationLink[] }) {
  const shown = links.filter((link) => link.shown);
  if (shown.length === 0) return null;
  return (
    <li>
      <span className="nav-group">{label}</span>
      <ul>
        {shown.map((link) => (
          <li key={String(link.to)}>
            <Link to={link.to}>{link.label}</Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

function MerchantSwitcher({ session }: { session: ConsoleSession }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const switchMerchant = useMutation({
    mutationFn: consoleApi.switchMerchant,
    // The answer is the session at the new merchant; everything else cached was the other's.
    onSuccess: async (switched) => {
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== SESSION_QUERY_KEY[0],
      });
      queryClient.setQueryData(SESSION_QUERY_KEY, switched);
      await navigate({ to: '/' });
    },
  });
  if (session.memberships.length < 2) return null;
  return (
    <>
      <label className="merchant-switcher">
        {t('nav.merchant')}
        <select
          value={session.merchant?.id ?? ''}
          disabled={switchMerchant.isPending}
          onChange={(event) => switchMerchant.mutate(event.target.value)}
        >
          {session.memberships.map((membership) => (
            <option key={membership.merchant_id} value={membership.merchant_id}>
              {membership.merchant_name}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={switchMerchant.error} />
    </>
  );
}

function SignOutButton() {
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
