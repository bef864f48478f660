import type { INestApplicationContext } from '@nestjs/common';
import { parseUnits } from 'ethers';
import { CURRENCIES, Currency, NETWORK_NAMES, NetworkName } from '@app/chains';
import {
  SweepNonceCancellation,
  SweepPlannerRepository,
  SweepStatus,
  TreasurySweeps,
} from '@app/treasury';
import { UsageError } from './usage-error';

type Options = Record<string, string | string[] | boolean | undefined>;

function optionalNetwork(options: Options): NetworkName | undefined {
  const given = options.network;
  if (given === undefined) return undefined;
  if (typeof given !== 'string' || !(NETWORK_NAMES as readonly string[]).includes(given)) {
    throw new UsageError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
  }
  return given as NetworkName;
}

function seconds(options: Options): number {
  const given = options.seconds;
  if (given === undefined) return 60;
  const value = typeof given === 'string' && /^[0-9]{1,4}$/.test(given) ? Number(given) : NaN;
  if (!(value >= 1 && value <= 3600)) throw new UsageError('--seconds must be from 1 to 3600.');
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * treasury:sweep: what the worker does on its schedule, now: passes over each sweeping network
 * until none of its sweeps is in flight (or --seconds pass), so the result shows them ended.
 */
async function sweepNow(app: INestApplicationContext, options: Options) {
  const only = optionalNetwork(options);
  const sweeps = app.get(TreasurySweeps);
  const networks = sweeps.networks().filter((network) => !only || network === only);
  if (only && !networks.length) {
    throw new UsageError(
      `${only} cannot sweep here: it needs an entry in TREASURY_FILE, a key in ` +
        'SWEEPER_KEYS_FILE and its family in DEPOSIT_KEYS_FILE.',
    );
  }
  const deadline = Date.now() + seconds(options) * 1000;
  const results = [];
  for (const network of networks) {
    const summary = { network, passes: 0, busy: 0, signed: [] as string[], completed: 0, live: 0 };
    for (;;) {
      const report = await sweeps.run(network);
      if (!report) summary.busy += 1;
      else {
        summary.passes += 1;
        summary.signed.push(...report.sweeps);
        summary.completed += report.tracked.completed;
      }
      summary.live = await sweeps.liveCount(network);
      if (summary.live === 0 || Date.now() > deadline) break;
      await sleep(500);
    }
    results.push(summary);
  }
  return results;
}

/** treasury:unfreeze: a frozen deposit address is swept again, its failures counted from zero. */
async function unfreeze(app: INestApplicationContext, options: Options) {
  const network = optionalNetwork(options);
  if (!network) throw new UsageError('--network is required.');
  const currency = options.currency;
  if (typeof currency !== 'string' || !(CURRENCIES as readonly string[]).includes(currency)) {
    throw new UsageError(`--currency must be one of ${CURRENCIES.join(', ')}.`);
  }
  const address = options.address;
  if (typeof address !== 'string' || !address) throw new UsageError('--address is required.');
  const unfrozen = await app
    .get(SweepPlannerRepository)
    .unfreeze(network, currency as Currency, address);
  if (!unfrozen) {
    throw new UsageError(`${address} is not a frozen ${currency} deposit address on ${network}.`);
  }
  return { network, currency, address, unfrozen };
}

/**
 * treasury:cancel-nonce: a zero-value send from the sweeper to itself takes a stuck sweep's nonce;
 * the sweep ends once the chain shows which transaction used it (treasury:sweep follows it).
 */
async function cancelNonce(app: INestApplicationContext, options: Options) {
  const network = optionalNetwork(options);
  if (!network) throw new UsageError('--network is required.');
  const given = options.nonce;
  if (typeof given !== 'string' || !/^(0|[1-9][0-9]{0,15})$/.test(given)) {
    throw new UsageError('--nonce must be a whole number.');
  }
  const nonce = Number(given);
  if (!Number.isSafeInteger(nonce)) throw new UsageError('--nonce must be a whole number.');
  const maxFee = options['max-fee-gwei'];
  if (
    maxFee !== undefined &&
    (typeof maxFee !== 'string' || !/^(0|[1-9][0-9]{0,8})(\.[0-9]{1,9})?$/.test(maxFee))
  ) {
    throw new UsageError('--max-fee-gwei must be a decimal number of gwei, like 25 or 1.5.');
  }
  return app.get(SweepNonceCancellation).cancelNonce({
    network,
    nonce,
    maxFeePerGas: maxFee === undefined ? undefined : parseUnits(maxFee, 'gwei'),
  });
}

export const SWEEP_COMMANDS = {
  'treasury:cancel-nonce': cancelNonce,
  'treasury:unfreeze': unfreeze,
  'treasury:status': async (app: INestApplicationContext, options: Options) =>
    app.get(SweepStatus).report(optionalNetwork(options)),
  'treasury:sweep': sweepNow,
};

export const SWEEP_USAGE = `  treasury:status [--network NETWORK]          balances per location (deposit addresses, hot
                                               wallet, treasury in the books; the sweeper's
                                               native coin on chain), what the policy would sweep
                                               now and its estimated cost, frozen addresses and
                                               those backing off; reads only
  treasury:sweep [--network NETWORK] [--seconds S]
                                               sweep now what the policy allows, as the worker
                                               does on its schedule, and follow the sweeps until
                                               none is in flight (at most S seconds, default 60)
  treasury:cancel-nonce --network NETWORK --nonce N [--max-fee-gwei GWEI]
                                               EVM: take a stuck sweep's sweeper nonce with a
                                               zero-value send to the sweeper itself (journaled,
                                               then sent); the sweep ends once the chain shows
                                               which transaction used the nonce (treasury:sweep)
  treasury:unfreeze --network NETWORK --currency CURRENCY --address ADDRESS
                                               sweep a frozen deposit address again (a token's
                                               blacklist lifted): clears its freeze and failures`;
