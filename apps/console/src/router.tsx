import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Link,
  Outlet,
} from '@tanstack/react-router';
import { basePath, realm } from './base-path';
import { ConsoleFrame } from './components/ConsoleFrame';
import { OpsLayout } from './components/OpsLayout';
import { t } from './i18n/t';

function NotFound() {
  return (
    <section className="centered">
      <h1>{t('notFound.title')}</h1>
      <Link to="/">{t('notFound.home')}</Link>
    </section>
  );
}

const rootRoute = createRootRoute({ component: Outlet, notFoundComponent: NotFound });

// Pages load on demand: the first load carries only the frame and the router.
const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'sign-in',
  component: lazyRouteComponent(() => import('./pages/SignInPage'), 'SignInPage'),
});
const twoFactorRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'sign-in/two-factor',
  component: lazyRouteComponent(() => import('./pages/TwoFactorPage'), 'TwoFactorPage'),
});
const acceptInvitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'accept-invitation',
  component: lazyRouteComponent(
    () => import('./pages/AcceptInvitationPage'),
    'AcceptInvitationPage',
  ),
});
const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'forgot-password',
  component: lazyRouteComponent(() => import('./pages/ForgotPasswordPage'), 'ForgotPasswordPage'),
});
const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'reset-password',
  component: lazyRouteComponent(() => import('./pages/ResetPasswordPage'), 'ResetPasswordPage'),
});
const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  // One build serves both areas: /ops has the operator's frame and home.
  component: realm === 'operator' ? OpsLayout : ConsoleFrame,
});
const homeRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/',
  component:
    realm === 'operator'
      ? lazyRouteComponent(() => import('./pages/ops/PayoutReviewsPage'), 'PayoutReviewsPage')
      : lazyRouteComponent(() => import('./pages/HomePage'), 'HomePage'),
});
const apiKeysRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'developers/api-keys',
  component: lazyRouteComponent(() => import('./pages/ApiKeysPage'), 'ApiKeysPage'),
});
const teamRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'settings/team',
  component: lazyRouteComponent(() => import('./pages/TeamPage'), 'TeamPage'),
});

const paymentsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payments',
  component: lazyRouteComponent(() => import('./pages/payments/PaymentsPage'), 'PaymentsPage'),
});
const paymentDetailRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payments/$sessionId',
  component: lazyRouteComponent(
    () => import('./pages/payments/PaymentDetailPage'),
    'PaymentDetailPage',
  ),
});
const unmatchedTransfersRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payments/unmatched',
  component: lazyRouteComponent(
    () => import('./pages/payments/UnmatchedTransfersPage'),
    'UnmatchedTransfersPage',
  ),
});
const refundTransferRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payments/unmatched/$transferId/refund',
  component: lazyRouteComponent(
    () => import('./pages/refunds/RefundTransferPage'),
    'RefundTransferPage',
  ),
});
const payoutsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts',
  // ?batch_id= filters the list by batch: a batch's page links to its payouts.
  validateSearch: (search: Record<string, unknown>): { batch_id?: string } =>
    typeof search.batch_id === 'string' && search.batch_id ? { batch_id: search.batch_id } : {},
  component: lazyRouteComponent(() => import('./pages/payouts/PayoutsPage'), 'PayoutsPage'),
});
const payoutBatchesRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts/batches',
  component: lazyRouteComponent(
    () => import('./pages/payouts/batches/PayoutBatchesPage'),
    'PayoutBatchesPage',
  ),
});
const uploadPayoutBatchRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts/batches/new',
  component: lazyRouteComponent(
    () => import('./pages/payouts/batches/PayoutBatchUploadPage'),
    'PayoutBatchUploadPage',
  ),
});
const payoutBatchDetailRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts/batches/$batchId',
  component: lazyRouteComponent(
    () => import('./pages/payouts/batches/PayoutBatchDetailPage'),
    'PayoutBatchDetailPage',
  ),
});
const createPayoutRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts/new',
  component: lazyRouteComponent(
    () => import('./pages/payouts/CreatePayoutPage'),
    'CreatePayoutPage',
  ),
});
const payoutDetailRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payouts/$payoutId',
  component: lazyRouteComponent(
    () => import('./pages/payouts/PayoutDetailPage'),
    'PayoutDetailPage',
  ),
});
const createRefundRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'payments/$sessionId/refund',
  component: lazyRouteComponent(
    () => import('./pages/refunds/CreateRefundPage'),
    'CreateRefundPage',
  ),
});
const refundsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'refunds',
  component: lazyRouteComponent(() => import('./pages/refunds/RefundsPage'), 'RefundsPage'),
});
const refundDetailRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'refunds/$refundId',
  component: lazyRouteComponent(
    () => import('./pages/refunds/RefundDetailPage'),
    'RefundDetailPage',
  ),
});
const webhooksRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'developers/webhooks',
  component: lazyRouteComponent(() => import('./pages/developers/WebhooksPage'), 'WebhooksPage'),
});
const eventsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'developers/events',
  component: lazyRouteComponent(() => import('./pages/developers/EventsPage'), 'EventsPage'),
});
const requestLogRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'developers/request-log',
  component: lazyRouteComponent(
    () => import('./pages/developers/RequestLogPage'),
    'RequestLogPage',
  ),
});
const securityRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'settings/security',
  component: lazyRouteComponent(() => import('./pages/settings/SecurityPage'), 'SecurityPage'),
});
const activityRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'settings/activity',
  component: lazyRouteComponent(() => import('./pages/settings/ActivityPage'), 'ActivityPage'),
});
const subMerchantsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'sub-merchants',
  component: lazyRouteComponent(
    () => import('./pages/sub-merchants/SubMerchantsPage'),
    'SubMerchantsPage',
  ),
});
const balancesRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'balances',
  component: lazyRouteComponent(() => import('./pages/BalancesPage'), 'BalancesPage'),
});
// The operator area's pages (linked from OpsLayout only; /ops/api refuses merchants' members).
const opsMerchantsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'merchants',
  component: lazyRouteComponent(() => import('./pages/ops/MerchantsPage'), 'MerchantsPage'),
});
const opsMerchantRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: 'merchants/$merchantId',
  component: lazyRouteComponent(
    () => import('./pages/ops/MerchantDetailPage'),
    'MerchantDetailPage',
  ),
});

const routeTree = rootRoute.addChildren([
  signInRoute,
  twoFactorRoute,
  acceptInvitationRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  signedInRoute.addChildren([
    homeRoute,
    balancesRoute,
    paymentsRoute,
    paymentDetailRoute,
    unmatchedTransfersRoute,
    refundTransferRoute,
    payoutsRoute,
    payoutBatchesRoute,
    uploadPayoutBatchRoute,
    payoutBatchDetailRoute,
    createPayoutRoute,
    payoutDetailRoute,
    createRefundRoute,
    refundsRoute,
    refundDetailRoute,
    subMerchantsRoute,
    apiKeysRoute,
    webhooksRoute,
    eventsRoute,
    requestLogRoute,
    teamRoute,
    securityRoute,
    activityRoute,
    opsMerchantsRoute,
    opsMerchantRoute,
  ]),
]);

export const router = createRouter({ routeTree, basepath: basePath });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
