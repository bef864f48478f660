import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { exitOnConfigurationError, loadAppConfig } from '@app/common';
import { migrateDatabase } from '@app/database';
import { HotWalletsFileError, PayoutCancelRefused, PayoutReviewError } from '@app/payouts';
import { TreasuryCommandError } from '@app/treasury';
import { CliModule } from './cli.module';
import { COMMANDS, COMMANDS_WITH_ID, UsageError, USAGE } from './commands';
import { StderrLogger } from './stderr-logger';

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      psp: { type: 'boolean' },
      'logo-url': { type: 'string' },
      merchant: { type: 'string' },
      key: { type: 'string' },
      count: { type: 'string' },
      family: { type: 'string' },
      percent: { type: 'string' },
      fixed: { type: 'string' },
      'fee-percent': { type: 'string' },
      'review-new-destinations': { type: 'string' },
      by: { type: 'string' },
      reason: { type: 'string' },
      status: { type: 'string', multiple: true },
      network: { type: 'string' },
      limit: { type: 'string' },
      nonce: { type: 'string' },
      'key-file': { type: 'string' },
      'max-fee-gwei': { type: 'string' },
      'until-idle': { type: 'boolean' },
      seconds: { type: 'string' },
      tx: { type: 'string' },
      // treasury:settle-fee
      'fee-wei': { type: 'string' },
      'dry-run': { type: 'boolean' },
      'sweep-amounts-checked': { type: 'boolean' },
      'confirm-large': { type: 'boolean' },
      // treasury:unfreeze
      currency: { type: 'string' },
      address: { type: 'string' },
      // console:invite, ops:invite
      email: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });
  const config = exitOnConfigurationError(loadAppConfig);
  if (command === 'db:migrate') {
    const applied = await migrateDatabase(config.databaseUrl);
    console.log(JSON.stringify({ applied }));
    return;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(command ? `Unknown command ${command}.` : 'No command given.');
  if (positionals.length && !COMMANDS_WITH_ID.has(command)) {
    throw new UsageError(`Unexpected argument ${positionals[0]}.`);
  }
  const app = await NestFactory.createApplicationContext(CliModule, {
    logger: new StderrLogger('cli', { logLevels: ['error', 'warn'] }),
  });
  try {
    console.log(JSON.stringify(await run(app, values, positionals)));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  // An operator action that does not apply to the payout as it stands: its message says why.
  if (
    error instanceof PayoutReviewError ||
    error instanceof PayoutCancelRefused ||
    error instanceof HotWalletsFileError ||
    error instanceof TreasuryCommandError
  ) {
    console.error(error.message);
    process.exit(2);
  }
  const usage =
    error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(usage ? `${(error as Error).message}\n\n${USAGE}` : error);
  process.exit(usage ? 2 : 1);
});
