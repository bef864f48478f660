import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CONSOLE_ROLES, ConsoleRole, isConsoleRole } from '@app/auth';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  CliInvitationError,
  CliPasswordResetError,
  inviteFromCli,
  passwordResetFromCli,
} from '@app/console';
import { UsageError } from './usage-error';

type Options = Record<string, string | string[] | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${name} is required.`);
  }
  return value.trim();
}

async function invite(
  app: INestApplicationContext,
  input: Parameters<typeof inviteFromCli>[2],
): Promise<unknown> {
  try {
    return await inviteFromCli(app.get(DataSource), app.get<AppConfig>(APP_CONFIG), input);
  } catch (error) {
    if (error instanceof CliInvitationError) throw new UsageError(error.message);
    throw error;
  }
}

async function resetPassword(
  app: INestApplicationContext,
  input: Parameters<typeof passwordResetFromCli>[2],
): Promise<unknown> {
  try {
    return await passwordResetFromCli(app.get(DataSource), app.get<AppConfig>(APP_CONFIG), input);
  } catch (error) {
    if (error instanceof CliPasswordResetError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The first member of a merchant's team, and every operator, are invited from here: nobody is
 * signed in yet to invite them (docs/console.md). The URL carries the token; it is shown once.
 */
export const CONSOLE_COMMANDS = {
  'console:invite': async (app: INestApplicationContext, options: Options) => {
    const role = required(options, 'role');
    if (!isConsoleRole(role)) {
      throw new UsageError(`--role must be one of ${CONSOLE_ROLES.join(', ')}.`);
    }
    return invite(app, {
      realm: 'merchant',
      merchantId: required(options, 'merchant'),
      email: required(options, 'email'),
      role: role as ConsoleRole,
    });
  },

  'ops:invite': async (app: INestApplicationContext, options: Options) => {
    // Support by default: the least reach; an admin is named deliberately (docs/operators.md).
    const operatorRole = options.role === undefined ? 'support' : required(options, 'role');
    if (operatorRole !== 'admin' && operatorRole !== 'support') {
      throw new UsageError('--role must be admin or support.');
    }
    return invite(app, {
      realm: 'operator',
      merchantId: null,
      email: required(options, 'email'),
      role: null,
      operatorRole,
    });
  },

  // No outgoing e-mail: an owner (whom no one in the console outranks) or an operator gets a
  // reset link from here, to hand over (docs/console.md, Password reset).
  'console:reset-password': async (app: INestApplicationContext, options: Options) =>
    resetPassword(app, { realm: 'merchant', email: required(options, 'email') }),

  'ops:reset-password': async (app: INestApplicationContext, options: Options) =>
    resetPassword(app, { realm: 'operator', email: required(options, 'email') }),
};

export const CONSOLE_USAGE = `  console:invite --merchant MERCHANT_ID --email EMAIL --role ROLE
                                               invite a member of a merchant's console team
                                               (roles owner, admin, developer, support, viewer):
                                               prints the invitation URL (valid 7 days, once)
  ops:invite --email EMAIL [--role admin|support]
                                               invite an operator to the /ops area (role support
                                               by default): prints the invitation URL (valid
                                               7 days, once)
  console:reset-password --email EMAIL         a password reset link for a console account
                                               (valid 1 hour, once; two-factor still asked)
  ops:reset-password --email EMAIL             the same for an operator's /ops account`;
