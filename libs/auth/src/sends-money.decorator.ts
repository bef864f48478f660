import { SetMetadata } from '@nestjs/common';

export const SENDS_MONEY = 'auth:sendsMoney';

/**
 * A route that sends money out (a payout, a refund). API keys call it as their scopes allow; a
 * console session never does: a stolen session cookie must not move money without the second
 * factor, so the console offers such actions on its own routes, which ask for a fresh code
 * (POST /console/api/payouts). PermissionGuard refuses console sessions here with 403.
 */
export const SendsMoney = (consoleRoute: string) => SetMetadata(SENDS_MONEY, consoleRoute);
