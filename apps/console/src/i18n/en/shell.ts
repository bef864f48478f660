/**
 * The console's frame in English: the app, the navigation, lists and filters, home and
 * balances, roles, access and errors.
 */
export const shellMessages = {
  'app.title': 'Console',
  'app.loading': 'Loading…',
  'app.testMode': 'Test mode',
  'app.liveMode': 'Live mode',
  'app.skipToContent': 'Skip to content',

  'nav.label': 'Main',
  'nav.home': 'Home',
  'nav.balances': 'Balances',
  'nav.payments': 'Payments',
  'nav.payouts': 'Payouts',
  'nav.developers': 'Developers',
  'nav.apiKeys': 'API keys',
  'nav.webhooks': 'Webhooks',
  'nav.events': 'Events',
  'nav.requestLog': 'Request log',
  'nav.settings': 'Settings',
  'nav.team': 'Team',
  'nav.security': 'Security',
  'nav.activity': 'Activity',
  'nav.merchant': 'Merchant',
  'nav.signOut': 'Sign out',
  'nav.subMerchants': 'Sub-merchants',
  'nav.refunds': 'Refunds',

  'home.title': 'Home',
  'home.balances': 'Balances',
  'home.noBalances': 'No balance yet: payments appear here once confirmed.',
  'home.network': 'Network',
  'home.currency': 'Currency',
  'home.subMerchant': 'Sub-merchant',
  'home.available': 'Available',
  'home.held': 'Held',
  'home.own': 'Own',

  'list.pagination': 'Pages',
  'list.previous': 'Previous page',
  'list.next': 'Next page',
  'list.page': 'Page {number}',
  'filters.label': 'Filters',
  'filters.any': 'Any',
  'filters.createdFrom': 'Created from',
  'filters.createdUntil': 'Created until',

  'balances.title': 'Balances',
  'balances.intro':
    'Per network and currency: available is confirmed payments net of fees, less payouts; held is reserved for payouts not finished yet.',

  'roles.owner': 'Owner',
  'roles.admin': 'Admin',
  'roles.developer': 'Developer',
  'roles.support': 'Support',
  'roles.viewer': 'Viewer',

  'access.denied': 'You do not have access',
  'access.deniedDetail':
    'Your role does not include this page. Ask an owner or admin of {merchant}.',
  'notFound.title': 'Page not found',
  'notFound.home': 'Go to the console’s home',

  'errors.authentication_failed': 'The email or password is wrong.',
  'errors.rate_limited': 'Too many attempts. Try again in {seconds} seconds.',
  'errors.rate_limited_later': 'Too many attempts. Try again later.',
  'errors.two_factor_required': 'Enter a valid authentication code.',
  'errors.csrf_failed': 'Your session changed in another tab. Reload the page and try again.',
  'errors.permission_denied': 'Your role does not allow this.',
  'errors.generic': 'Something went wrong: {message}',
  'errors.network': 'The console could not reach the server. Check your connection and try again.',
} as const;
