import { parseUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { NetworkRegistry } from '@app/chains';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  loadHotWallets,
  PAYOUT_STATUSES,
  PayoutCancellation,
  PayoutReviews,
  PayoutStatus,
  PayoutTracker,
  WalletStatus,
} from '@app/payouts';
import {
  Command,
  networkOption,
  optionalDecimal,
  Options,
  required,
  requiredText,
  theId,
  wholeNumber,
} from './cli-options';
import { UsageError } from './usage-error';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Hot wallets and payouts: review, a stuck nonce canceled, a network's tracker run here. */
export const PAYOUT_COMMANDS: Record<string, Command> = {
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
};

export const PAYOUT_USAGE = `  wallets:status                               each hot wallet: address, token and native
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
                                               fails and re-sends stored transactions`;
