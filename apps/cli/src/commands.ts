import { CHAIN_COMMANDS, CHAIN_USAGE, POOL_USAGE } from './chain-commands';
import { CONSOLE_COMMANDS, CONSOLE_USAGE } from './console-commands';
import { Command } from './cli-options';
import { MERCHANT_COMMANDS, MERCHANT_USAGE } from './merchant-commands';
import { PAYOUT_COMMANDS, PAYOUT_USAGE } from './payout-commands';
import { SWEEP_COMMANDS, SWEEP_USAGE } from './sweep-commands';
import { TREASURY_BOOKS_COMMANDS, TREASURY_BOOKS_USAGE } from './treasury-commands';

export type { Command, Options } from './cli-options';

export { UsageError } from './usage-error';

/** Commands that take one positional argument (an id); the others take none. */
export const COMMANDS_WITH_ID = new Set(['payouts:approve', 'payouts:reject']);

/** Each command prints exactly one JSON value on stdout, so scripts can parse it. */
export const COMMANDS: Record<string, Command> = {
  ...SWEEP_COMMANDS,
  ...TREASURY_BOOKS_COMMANDS,
  ...CONSOLE_COMMANDS,
  ...MERCHANT_COMMANDS,
  ...PAYOUT_COMMANDS,
  ...CHAIN_COMMANDS,
};

export const USAGE = `Usage: npm run cli -- <command> [options]

  db:migrate                                   create the database if needed and apply migrations
${MERCHANT_USAGE}
${POOL_USAGE}
${PAYOUT_USAGE}
${CHAIN_USAGE}
${CONSOLE_USAGE}
${SWEEP_USAGE}
${TREASURY_BOOKS_USAGE}`;
