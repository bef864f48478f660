import type { INestApplicationContext } from '@nestjs/common';
import { ChainError, NETWORK_NAMES, NetworkName } from '@app/chains';
import {
  FundingBooks,
  ReconciliationRow,
  ReconciliationService,
  TreasuryCommandError,
} from '@app/treasury';

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
   * A full run per network (or the one given), now. Prints one row per (network, currency) and
   * exits 1 unless every difference is 0.
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
    const differing = rows.filter((row) => row.difference !== '0');
    if (differing.length) {
      console.error(
        `Books differ from the chain for ${differing
          .map((row) => `${row.network} ${row.currency} (${row.difference})`)
          .join(', ')}.`,
      );
      process.exitCode = 1;
    }
    return rows.map(
      ({ network, currency, onchain, books, difference, addresses, block, pending }) => ({
        network,
        currency,
        onchain,
        books,
        difference,
        addresses,
        block,
        ...(pending ? { pending } : {}),
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
};

export const TREASURY_BOOKS_USAGE = `  treasury:reconcile [--network NETWORK]       books = chain now (a full run): one JSON row per
                                               (network, currency); exit 0 only if every
                                               difference is 0
  treasury:book-funding --network NETWORK --tx HASH
                                               books an operator's transfer into the service's
                                               wallets (or out of the treasury), once`;
