import type { INestApplicationContext } from '@nestjs/common';
import { ChainError, NETWORK_NAMES, NetworkName } from '@app/chains';
import {
  differs,
  FundingBooks,
  OperatorFeeSettlement,
  ReconciliationRow,
  ReconciliationService,
  TreasuryCommandError,
} from '@app/treasury';
import { evmTxHashOption, requiredText, weiOption, wholeNumber } from './cli-options';

type Options = Record<string, string | string[] | boolean | undefined>;

function networkOf(options: Options, required: boolean): NetworkName | undefined {
  const given = options.network;
  if (given === undefined && !required) return undefined;
  if (typeof given !== 'string' || !NETWORK_NAMES.includes(given as NetworkName)) {
    throw new TreasuryCommandError(`--network must be one of ${NETWORK_NAMES.join(', ')}.`);
  }
  return given as NetworkName;
}

/** The books' commands (docs/treasury.md, "Operator commands"); sweeps have their own file. */
export const TREASURY_BOOKS_COMMANDS: Record<
  string,
  (app: INestApplicationContext, options: Options) => Promise<unknown>
> = {
  /**
   * A full run per network (or the one given), now. Prints one row per (network, currency), each
   * with its `locations`, and exits 1 unless every difference, total and per location, is 0.
   */
  'treasury:reconcile': async (app, options) => {
    const service = app.get(ReconciliationService);
    const given = networkOf(options, false);
    const networks = given ? [given] : await service.networksToReconcile();
    const rows: ReconciliationRow[] = [];
    for (const network of networks) {
      try {
        rows.push(...((await service.reconcile(network, 'full', true)) ?? []));
      } catch (error) {
        // One network's node down must not hide the others' rows; it fails the command all the same.
        if (!(error instanceof ChainError)) throw error;
        console.error(`${network} not reconciled: ${error.message}`);
        process.exitCode = 1;
      }
    }
    const differing = rows.filter(differs);
    if (differing.length) {
      const locations = (row: ReconciliationRow) =>
        row.locations
          .filter((location) => location.difference !== '0')
          .map((location) => `; ${location.location} ${location.difference}`)
          .join('');
      console.error(
        `Books differ from the chain for ${differing
          .map((row) => `${row.network} ${row.currency} (${row.difference}${locations(row)})`)
          .join(', ')}.`,
      );
      process.exitCode = 1;
    }
    return rows.map(
      ({
        network,
        currency,
        onchain,
        books,
        difference,
        addresses,
        block,
        pending,
        locations,
      }) => ({
        network,
        currency,
        onchain,
        books,
        difference,
        addresses,
        block,
        ...(pending ? { pending } : {}),
        locations,
      }),
    );
  },

  /** Books an operator's funding (or treasury withdrawal) transaction, once. */
  'treasury:book-funding': async (app, options) => {
    const network = networkOf(options, true) as NetworkName;
    const tx = options.tx;
    if (typeof tx !== 'string' || tx.trim() === '') {
      throw new TreasuryCommandError('--tx must be the transaction hash to book.');
    }
    return app.get(FundingBooks).book(network, tx.trim());
  },

  /**
   * The fees the gauge payments_treasury_fees_not_final counts, row by row, --limit of them (100):
   * the JSON array on stdout, how many more on stderr; reads only.
   */
  'treasury:fees': async (app, options) => {
    const network = networkOf(options, false);
    const limit = wholeNumber(options, 'limit', 1, 10_000, 100);
    const { rows, more } = await app.get(OperatorFeeSettlement).notFinal(network, limit);
    if (more) console.error(`${more} more not listed: raise --limit, or give --network.`);
    return rows;
  },

  /**
   * An operator's final fee for a row left for an operator or overdue: the difference posted
   * once (`network_fee_operator:<network>:<tx>`), the row made final with who and why. In wei,
   * not coins: the unit the row, the receipt and the listing use, with no decimals to misplace.
   */
  'treasury:settle-fee': async (app, options) => {
    const network = networkOf(options, true) as NetworkName;
    const txHash = evmTxHashOption(options, 'tx');
    const feeWei = weiOption(options, 'fee-wei');
    const by = requiredText(options, 'by', 200);
    const reason = requiredText(options, 'reason', 500);
    return app.get(OperatorFeeSettlement).settle({
      network,
      txHash,
      feeWei,
      by,
      reason,
      sweepAmountsChecked: options['sweep-amounts-checked'] === true,
      confirmLarge: options['confirm-large'] === true,
      dryRun: options['dry-run'] === true,
    });
  },
};

export const TREASURY_BOOKS_USAGE = `  treasury:reconcile [--network NETWORK]       books = chain now (a full run): one JSON row per
                                               (network, currency) with its locations; exit 0
                                               only if every difference (total and per
                                               location) is 0
  treasury:book-funding --network NETWORK --tx HASH
                                               books an operator's transfer into the service's
                                               wallets (or out of the treasury), once
  treasury:fees [--network NETWORK] [--limit N]
                                               EVM fees not final that are left for an operator
                                               or overdue (the gauge
                                               payments_treasury_fees_not_final), each with its
                                               payout or sweep; N of them (100), how many more
                                               on stderr; reads only
  treasury:settle-fee --network NETWORK --tx HASH --fee-wei WEI --by NAME --reason TEXT
                      [--dry-run] [--sweep-amounts-checked] [--confirm-large]
                                               make such a fee final at WEI (the fee you decided,
                                               in wei): the difference from the booked fee is
                                               posted once between the fee entry's accounts
                                               (network_fee_operator:NETWORK:HASH), who and why
                                               recorded; refused (exit 2) for a fee unknown,
                                               final or still checked by the pass, a batch
                                               sweep's without --sweep-amounts-checked (its
                                               Swept events checked on an explorer), one above
                                               10x the booked fee without --confirm-large;
                                               --dry-run prints the row, the difference and the
                                               entry, and writes nothing`;
