/**
 * What a caller may do. A restricted API key holds a set of API scopes; a console user holds its
 * role's permissions, which add console-only ones (keys, team, logs) to the same API scopes. One
 * vocabulary lets one check guard every route, whoever calls it (docs/console.md, Roles).
 */
export const API_SCOPES = [
  'checkout_sessions:read',
  'checkout_sessions:write',
  'refunds:read',
  'refunds:write',
  'payouts:read',
  'payouts:write',
  'balances:read',
  'webhook_endpoints:read',
  'webhook_endpoints:write',
  'sub_merchants:read',
  'sub_merchants:write',
  'events:read',
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

/** What only the console does: never grantable to an API key. */
export const CONSOLE_PERMISSIONS = [
  'api_keys:read',
  'api_keys:write',
  'team:read',
  'team:write',
  'audit_log:read',
  'request_log:read',
  'security:write',
  // Resending a webhook delivery: support may, though it writes nothing else.
  'webhook_deliveries:resend',
] as const;
export type ConsolePermission = (typeof CONSOLE_PERMISSIONS)[number];

export type Permission = ApiScope | ConsolePermission;

export const CONSOLE_ROLES = ['owner', 'admin', 'developer', 'support', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

const EVERY_PERMISSION: readonly Permission[] = [...API_SCOPES, ...CONSOLE_PERMISSIONS];
const READS_OF_MONEY: readonly Permission[] = [
  'checkout_sessions:read',
  'refunds:read',
  'payouts:read',
  'balances:read',
  'sub_merchants:read',
  'events:read',
  'webhook_endpoints:read',
];

export const ROLE_PERMISSIONS: Record<ConsoleRole, ReadonlySet<Permission>> = {
  owner: new Set(EVERY_PERMISSION),
  // An admin does everything an owner does; only an owner may change or remove an owner.
  admin: new Set(EVERY_PERMISSION),
  // Keys, webhooks and logs; test sessions; no payouts, refunds or team.
  developer: new Set<Permission>([
    'api_keys:read',
    'api_keys:write',
    'webhook_endpoints:read',
    'webhook_endpoints:write',
    'webhook_deliveries:resend',
    'events:read',
    'request_log:read',
    'checkout_sessions:read',
    'checkout_sessions:write',
    'balances:read',
    'sub_merchants:read',
  ]),
  support: new Set<Permission>([...READS_OF_MONEY, 'webhook_deliveries:resend']),
  viewer: new Set<Permission>(READS_OF_MONEY),
};

/** Roles ordered by reach: an inviter never grants a role above its own. */
export const ROLE_RANK: Record<ConsoleRole, number> = {
  owner: 4,
  admin: 3,
  developer: 2,
  support: 1,
  viewer: 0,
};

export function isApiScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value);
}

export function isConsoleRole(value: string): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly string[]).includes(value);
}
