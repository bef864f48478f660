import type { INestApplicationContext } from '@nestjs/common';
import { parseUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { ApiKeysService, MerchantsService } from '@app/auth';
import { PayAddressPool } from '@app/checkout';
import {
  ChainResetService,
  UNMATCHED_REASONS,
  UNMATCHED_STATUSES,
  UnmatchedReason,
  UnmatchedStatus,
  UnmatchedTransfersService,
} from '@app/deposits';
import {
  CHAIN_FAMILIES,
  ChainFamily,
  NETWORK_NAMES,
  NetworkName,
  NetworkRegistry,
} from '@app/chains';
import { APP_CONFIG, AppConfig } from '@app/common';
import { recordAudit } from '@app/console';
import { SweepChainReset } from '@app/treasury';
import { CONSOLE_COMMANDS, CONSOLE_USAGE } from './console-commands';
import { SWEEP_COMMANDS, SWEEP_USAGE } from './sweep-commands';
import { TREASURY_BOOKS_COMMANDS, TREASURY_BOOKS_USAGE } from './treasury-commands';
import { UsageError } from './usage-error';
import {
  loadHotWallets,
  PAYOUT_STATUSES,
  PayoutCancellation,
  PayoutReviews,
  PayoutStatus,
  PayoutTracker,
  WalletStatus,
} from '@app/payouts';

/** Who the CLI's changes are audited as: whoever runs it on the server, not a console account. */
const CLI_ACTOR = { actorType: 'cli', actorId: null } as const;

export type Options = Record<string, string | string[] | boolean | undefined>;
/** `args` are the positional arguments after the command name (only some commands take one). */
export type Command = (
  app: INestApplicationContext,
  options: Options,
  args: string[],
) => Promise<unknown>;

export { UsageError } from './usage-error';

/** Commands that take one positional argument (an id); the others take none. */
export const COMMANDS_WITH_ID = new Set(['payouts:approve', 'payouts:reject']);

function theId(args: string[], what: string): string {
  if (args.length !== 1 || args[0].trim() === '') {
    throw new UsageError(`Give exactly one ${what} id.`);
  }
  return args[0].trim();
}

/** A short free-text option (a name, a reason), required. */
function requiredText(options: Options, name: string, maxLength: number): string {
  const value = required(options, name);
  if (value.length > maxLength) {
    throw new UsageError(`--${name} must be at most ${maxLength} characters.`);
  }
  return value;
}

/** --status given once or more, each value possibly a comma list; Pending when absent. */
function payoutStatuses(options: Options): PayoutStatus[] {
  const given = options.status;
  const raw = given === undefined ? ['Pending'] : Array.isArray(given) ? given : [String(given)];
  const statuses = raw.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const status of statuses) {
    if (!PAYOUT_STATUSES.includes(status as PayoutStatus)) {
      throw new UsageError(`--status must be one of ${PAYOUT_STATUSES.join(', ')}.`);
    }
  }
  return [...new Set(statuses)] as PayoutStatus[];
}

/** An option given once or more, each value possibly a comma list, each one of `allowed`. */
function listOption<T extends string>(options: Options, name: string, allowed: readonly T[]): T[] {
  const given = options[name];
  if (given === undefined) return [];
  const raw = Array.isArray(given) ? given : [String(given)];
  const values = raw.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const value of values) {
    if (!allowed.includes(value as T)) {
      throw new UsageError(`--${name} must be one of ${allowed.join(', ')}.`);
    }
  }
  return [...new Set(values)] as T[];
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required.`);
  return value.trim();
}

/** A decimal option, or null when absent (null means "use the configured default"). */
function optionalDecimal(options: Options, name: string, shape: RegExp): string | null {
  const value = options[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !shape.test(value)) {
    throw new UsageError(`--${name} must be a decimal such as "1.5".`);
  }
  return value;
}

function networkOption(options: Options): NetworkName {
  const network = required(options, 'network');
  if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
    throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
  }
  return network as NetworkName;
}

/** A whole-number option from `min` to `max`, or `fallback` when absent. */
function wholeNumber(
  options: Options,
  name: string,
  min: number,
  max: number,
  fallback?: number,
): number {
  const given = options[name];
  if (given === undefined && fallback !== undefined) return fallback;
  const value = typeof given === 'string' && /^[0-9]{1,16}$/.test(given) ? Number(given) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function httpUrl(value: string, name: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) throw new UsageError(`--${name} must be an http(s) URL.`);
  return value;
}

function merchantView(merchant: {
  id: string;
  kind: string;
  name: string;
  logoUrl: string | null;
  createdAt: Date;
}) {
  return {
    merchant_id: merchant.id,
    kind: merchant.kind,
    name: merchant.name,
    logo_url: merchant.logoUrl,
    created_at: merchant.createdAt.toISOString(),
  };
}

/** Each command prints exactly one JSON value on stdout, so scripts can parse it. */
export const COMMANDS: Record<string, Command> = {
  ...SWEEP_COMMANDS,
  ...TREASURY_BOOKS_COMMANDS,
  ...CONSOLE_COMMANDS,
  'merchants:create': async (app, options) => {
    const name = required(options, 'name');
    if (name.length > 200) throw new UsageError('--name must be at most 200 characters.');
    const logoUrl =
      typeof options['logo-url'] === 'string' ? httpUrl(options['logo-url'], 'logo-url') : null;
    // The merchant, its first key and their audit entry commit together.
    const { merchant, key } = await app.get(DataSource).transaction(async (manager) => {
      const merchant = await app
        .get(MerchantsService)
        .create({ name, kind: options.psp ? 'psp' : 'direct', logoUrl }, manager);
      const key = await app.get(ApiKeysService).create(merchant.id, manager);
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId: merchant.id,
        action: 'merchant.created',
        targetType: 'merchant',
        targetId: merchant.id,
        details: { name, kind: merchant.kind, api_key_id: key.id, key_hint: key.key_hint },
      });
      return { merchant, key };
    });
    return { ...merchantView(merchant), api_key_id: key.id, api_key: key.api_key };
  },

  'merchants:list': async (app) => (await app.get(MerchantsService).list()).map(merchantView),

  'keys:create': async (app, options) => {
    const merchantId = required(options, 'merchant');
    if (!(await app.get(MerchantsService).findById(merchantId))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    const key = await app.get(DataSource).transaction(async (manager) => {
      const key = await app.get(ApiKeysService).create(merchantId, manager);
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: key.id,
        details: { name: null, scopes: null, key_hint: key.key_hint },
      });
      return key;
    });
    return {
      merchant_id: merchantId,
      api_key_id: key.id,
      api_key: key.api_key,
      livemode: key.livemode,
    };
  },

  'keys:list': async (app, options) => {
    const keys = await app.get(ApiKeysService).listForMerchant(required(options, 'merchant'));
    return keys.map((key) => ({
      api_key_id: key.id,
      hint: key.keyHint,
      livemode: key.livemode,
      created_at: key.createdAt.toISOString(),
      revoked_at: key.revokedAt?.toISOString() ?? null,
    }));
  },

  'keys:revoke': async (app, options) => {
    const keyId = required(options, 'key');
    const apiKeys = app.get(ApiKeysService);
    // The revocation and its audit entry commit together (the NOTIFY goes out on commit).
    const revoked = await app.get(DataSource).transaction(async (manager) => {
      const [key]: Array<{ merchant_id: string }> = await manager.query(
        `SELECT merchant_id FROM api_keys WHERE id = $1`,
        [keyId],
      );
      if (!key || !(await apiKeys.revoke(keyId, {}, manager))) return false;
      await recordAudit(manager, {
        ...CLI_ACTOR,
        merchantId: key.merchant_id,
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: keyId,
      });
      return true;
    });
    if (!revoked) throw new UsageError(`No active API key ${keyId}.`);
    apiKeys.forget(keyId);
    return { api_key_id: keyId, revoked: true };
  },

  'merchants:set-fee': async (app, options) => {
    const merchantId = required(options, 'merchant');
    const percent = optionalDecimal(options, 'percent', /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/);
    const fixed = optionalDecimal(options, 'fixed', /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/);
    if (!(await app.get(MerchantsService).setFeeRule(merchantId, percent, fixed))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    return { merchant_id: merchantId, fee_percent: percent, fee_fixed: fixed };
  },

  'merchants:set-payout-policy': async (app, options) => {
    const merchantId = required(options, 'merchant');
    const feePercent = optionalDecimal(options, 'fee-percent', /^(0|[1-9][0-9]?)(\.[0-9]{1,4})?$/);
    const review = options['review-new-destinations'];
    if (review !== undefined && review !== 'true' && review !== 'false') {
      throw new UsageError('--review-new-destinations must be true or false.');
    }
    const reviewNewDestinations = review === 'true';
    const merchants = app.get(MerchantsService);
    if (!(await merchants.setPayoutPolicy(merchantId, feePercent, reviewNewDestinations))) {
      throw new UsageError(`No merchant ${merchantId}.`);
    }
    return {
      merchant_id: merchantId,
      payout_fee_percent: feePercent,
      review_new_destinations: reviewNewDestinations,
    };
  },

  'wallets:status': async (app) => app.get(WalletStatus).all(),

  'payouts:list': async (app, options) => app.get(PayoutReviews).list(payoutStatuses(options)),

  'payouts:approve': async (app, options, args) => {
    const id = theId(args, 'payout');
    return app.get(PayoutReviews).approve(id, requiredText(options, 'by', 200));
  },

  'payouts:reject': async (app, options, args) => {
    const id = theId(args, 'payout');
    const by = requiredText(options, 'by', 200);
    return app.get(PayoutReviews).reject(id, by, requiredText(options, 'reason', 500));
  },

  'payouts:cancel-nonce': async (app, options) => {
    const network = networkOption(options);
    const nonce = wholeNumber(options, 'nonce', 0, Number.MAX_SAFE_INTEGER);
    const keyFile = options['key-file'] === undefined ? undefined : required(options, 'key-file');
    // Read here and handed over, never printed: the result names the wallet's address only.
    const keyFromFile = keyFile
      ? loadHotWallets(keyFile, app.get(NetworkRegistry), '--key-file').get(network)
      : undefined;
    if (keyFile && !keyFromFile)
      throw new UsageError(`--key-file ${keyFile} has no ${network} key.`);
    const maxFee = optionalDecimal(options, 'max-fee-gwei', /^(0|[1-9][0-9]{0,8})(\.[0-9]{1,9})?$/);
    return app.get(PayoutCancellation).cancelNonce({
      network,
      nonce,
      keyFromFile,
      maxFeePerGas: maxFee === null ? undefined : parseUnits(maxFee, 'gwei'),
    });
  },

  'payouts:track': async (app, options) => {
    const network = networkOption(options);
    const seconds = wholeNumber(options, 'seconds', 1, 3600, 60);
    const untilIdle = options['until-idle'] === true;
    const tracker = app.get(PayoutTracker);
    const dataSource = app.get(DataSource);
    const intervalMs = app.get<AppConfig>(APP_CONFIG).payouts.trackIntervalMs;
    const deadline = Date.now() + seconds * 1000;
    const summary = {
      network,
      ticks: 0,
      // Ticks not run because another one held the network (a worker's, or another CLI's).
      busy: 0,
      completed: 0,
      failed: 0,
      replaced: 0,
      rebroadcast: 0,
      resigned: 0,
      in_flight: 0,
      idle: false,
      unreplaceable: [] as string[],
    };
    for (;;) {
      const report = await tracker.track(network);
      if (report) {
        summary.ticks += 1;
        summary.completed += report.completed;
        summary.failed += report.failed;
        summary.replaced += report.replaced;
        summary.rebroadcast += report.rebroadcast;
        summary.resigned += report.resigned;
        summary.unreplaceable = report.unreplaceable;
      } else {
        summary.busy += 1;
      }
      const [{ count }]: Array<{ count: number }> = await dataSource.query(
        `SELECT count(*)::int AS count FROM payouts WHERE network = $1 AND status = 'Processing'`,
        [network],
      );
      summary.in_flight = count;
      summary.idle = count === 0;
      if (summary.idle || (report && !untilIdle) || Date.now() >= deadline) return summary;
      await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
    }
  },

  'unmatched:list': async (app, options) => {
    const network = options.network === undefined ? undefined : String(options.network);
    if (network !== undefined && !(NETWORK_NAMES as readonly string[]).includes(network)) {
      throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
    }
    const limit = Number(options.limit ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new UsageError('--limit must be a whole number from 1 to 1000.');
    }
    return app.get(UnmatchedTransfersService).listForOperator({
      merchantId: typeof options.merchant === 'string' ? options.merchant.trim() : undefined,
      network,
      reasons: listOption<UnmatchedReason>(options, 'reason', UNMATCHED_REASONS),
      statuses: listOption<UnmatchedStatus>(options, 'status', UNMATCHED_STATUSES),
      limit,
    });
  },

  'chains:forget': async (app, options) => {
    const network = required(options, 'network');
    if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
      throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
    }
    const report = await app.get(ChainResetService).forget(network as NetworkName);
    // The sweeper's nonce lane and live sweeps of the gone chain, as payouts' nonces are reset.
    const sweeps = await app.get(SweepChainReset).forget(network as NetworkName);
    return {
      network: report.network,
      reverted_transfers: report.revertedTransfers,
      settled_sessions: report.settledSessions,
      reverted_unmatched_transfers: report.revertedUnmatched,
      kept_refunded_unmatched_transfers: report.keptRefundedUnmatched,
      forgotten_nonce_proofs: report.forgottenNonceProofs,
      ended_sweeps: sweeps.endedSweeps,
      sweeper_nonce_reset: sweeps.sweeperNonceReset,
      reversed_unmatched_native: sweeps.reversedStrangerCoin,
      finalized_fees: sweeps.finalizedFees,
    };
  },

  'pool:fill': async (app, options) => {
    // By default up to the pool size the worker keeps (PAY_ADDRESS_POOL_TARGET).
    const count = Number(options.count ?? app.get<AppConfig>(APP_CONFIG).payAddressPool.targetSize);
    if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
      throw new UsageError('--count must be a whole number from 1 to 1000000.');
    }
    const families = options.family ? [String(options.family)] : [...CHAIN_FAMILIES];
    const pool = app.get(PayAddressPool);
    const added: Record<string, number> = {};
    for (const family of families) {
      if (!CHAIN_FAMILIES.includes(family as ChainFamily)) {
        throw new UsageError(`--family must be one of ${CHAIN_FAMILIES.join(', ')}.`);
      }
      added[family] = await pool.refill(family as ChainFamily, count, count);
    }
    return { added };
  },
};

export const USAGE = `Usage: npm run cli -- <command> [options]

  db:migrate                                   create the database if needed and apply migrations
  merchants:create --name NAME [--psp] [--logo-url URL]
                                               create a merchant and its first API key (shown once)
  merchants:list
  merchants:set-fee --merchant MERCHANT_ID [--percent P] [--fixed AMOUNT]
                                               fee rule; an omitted part uses the default
  merchants:set-payout-policy --merchant MERCHANT_ID [--fee-percent P]
                              [--review-new-destinations true|false]
                                               payout policy: percent fee on top of the network's
                                               fixed fee, and whether a first payout to a new
                                               address waits for review; an omitted part uses the
                                               default (PAYOUT_FEE_PERCENT, false)
  keys:create --merchant MERCHANT_ID           issue another API key (shown once)
  keys:list --merchant MERCHANT_ID
  keys:revoke --key API_KEY_ID
  pool:fill [--count N] [--family EVM|TRON]    pre-derive pay addresses up to N unclaimed (default: the pool target)
  wallets:status                               each hot wallet: address, token and native
                                               balances, next nonce, payouts in flight and waiting
  payouts:list [--status STATUS]...            payouts in these statuses (repeat, or a comma list;
                                               default Pending), oldest first, at most 100
  payouts:approve PAYOUT_ID --by NAME          approve a payout awaiting review; the worker sends it
  payouts:reject PAYOUT_ID --by NAME --reason TEXT
                                               reject a Pending payout; its funds go back to the
                                               balance
  payouts:cancel-nonce --network NETWORK --nonce N [--key-file PATH] [--max-fee-gwei GWEI]
                                               EVM, a payout stuck in Processing at nonce N of
                                               the hot wallet (refused for good, or signed by a
                                               rotated key): a zero-value send to the wallet
                                               itself takes the nonce; once it is mined and
                                               confirmed the tracker fails the payout and
                                               releases its funds. --key-file: the wallet's key
                                               when HOT_WALLETS_FILE holds another (same JSON
                                               shape); --max-fee-gwei: a cap above
                                               PAYOUT_MAX_FEE_GWEI for this cancel
  payouts:track --network NETWORK [--until-idle] [--seconds S]
                                               run the payout tracker of a network here (one
                                               whose key was removed, which no worker tracks):
                                               one tick, or with --until-idle ticks until no
                                               payout of it is in flight, at most S seconds
                                               (default 60). Without a key it only completes,
                                               fails and re-sends stored transactions
  unmatched:list [--network NETWORK] [--reason REASON[,REASON]] [--status STATUS]...
                 [--merchant MERCHANT_ID] [--limit N]
                                               transfers to our addresses that no session took
                                               (reasons wrong_network, wrong_token,
                                               session_already_paid, session_refunded,
                                               unknown_address; statuses detected, reverted),
                                               every merchant's and those of no merchant, newest
                                               first, at most N (default 100)
  chains:forget --network NETWORK              after a devnet restart or testnet reset only: the
                                               chain the watcher followed is gone; its transfers
                                               are taken back and the watcher starts afresh;
                                               its live sweeps end and the sweeper's nonces
                                               start again from the node's count
${CONSOLE_USAGE}
${SWEEP_USAGE}
${TREASURY_BOOKS_USAGE}`;
