import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { CURRENCIES, NATIVE_COINS, NetworkConfig, NetworkName, NetworkRegistry } from '@app/chains';
import { fromBaseUnits } from '@app/ledger';
import { BalanceQuery } from './balance-reads';
import { ChainBalanceReaders } from './chain-balance-readers';
import {
  BooksLocation,
  LocationRun,
  persists,
  ReconciliationRepository,
  signatureOf,
  StoredRun,
} from './reconciliation.repository';

export type ReconciliationMode = 'full' | 'incremental';

/** One (network, currency): what the chain holds on our addresses against what the books say. */
export interface ReconciliationRow {
  network: string;
  currency: string;
  /** Whole units, exact decimal strings. */
  onchain: string;
  books: string;
  /** onchain - books. */
  difference: string;
  addresses: number;
  block: number;
  /** Native coin only: our transactions not booked yet, which may explain a difference. */
  pending?: string[];
  /**
   * The same per location: deposit addresses against `deposits`, each wallet role's addresses
   * (current and replaced) against its account (`sweeper` + `staking` for the sweeper). A unit
   * booked to the wrong location shows here even when the currency's total matches.
   */
  locations: LocationRun[];
  /** The same differences (total and per location) were there in the previous run: the alert. */
  persistent: boolean;
}

const LOCATIONS: BooksLocation[] = ['deposits', 'hot_wallet', 'treasury', 'sweeper'];

interface Asset {
  currency: string;
  decimals: number;
  /** Token contract; null for the native coin. */
  token: string | null;
}

/**
 * Books = chain (docs/treasury.md, "Reconciliation"): per (network, currency), the balances of
 * every address the service controls, read at one confirmed block, against the ledger's asset
 * accounts. An incremental run reads again only the wallets and the deposit addresses that moved
 * since the previous run and reuses the stored balances of the rest; a full run reads them all.
 */
@Injectable()
export class ReconciliationService {
  private readonly logger = new Logger(ReconciliationService.name);

  constructor(
    private readonly networks: NetworkRegistry,
    private readonly repository: ReconciliationRepository,
    private readonly readers: ChainBalanceReaders,
  ) {}

  /** Networks with a registered wallet or an asset in the books. */
  async networksToReconcile(): Promise<NetworkName[]> {
    const known = new Set<string>(this.networks.list().map((network) => network.name));
    return (await this.repository.networksWithHoldings()).filter((name): name is NetworkName =>
      known.has(name),
    );
  }

  /**
   * One run for a network. `wait`: block until another run of the network ends (the CLI);
   * otherwise null when one is running (overlapping worker jobs).
   */
  async reconcile(
    name: NetworkName,
    mode: ReconciliationMode,
    wait = false,
  ): Promise<ReconciliationRow[] | null> {
    return this.repository.whileLocked(name, wait, () => this.run(this.networks.get(name), mode));
  }

  private async run(network: NetworkConfig, requested: ReconciliationMode) {
    const startedAt = new Date();
    const previous =
      requested === 'incremental' ? await this.repository.lastRun(network.name) : null;
    // Nothing stored yet: an incremental run would have nothing to reuse.
    const mode: ReconciliationMode = previous ? 'incremental' : 'full';
    const lowercase = network.chainFamily === 'EVM';
    const reader = this.readers.readerFor(network.name);
    const block = await reader.readBlock(network.confirmations);
    const coin = NATIVE_COINS[network.name].symbol;
    const [wallets, deposits, nativeOnDeposits] = await Promise.all([
      this.repository.wallets(network.name),
      this.repository.depositAddresses(network.name, lowercase, previous ?? undefined),
      this.repository.booksNativeOnDeposits(network.name, coin),
    ]);
    const assets = assetsOf(network);
    const queries: BalanceQuery[] = [];
    const currencies: string[] = [];
    const walletAddresses = [
      ...new Set(
        wallets.map((wallet) => (lowercase ? wallet.address.toLowerCase() : wallet.address)),
      ),
    ];
    const depositsAndWallets = [...new Set([...deposits, ...walletAddresses])];
    for (const asset of assets) {
      // Deposit addresses hold tokens only (the sweeper pays every sweep's gas), except where gas
      // top-up sweeps put native coin on them: then the books hold it (deposits:N:COIN) too.
      const withDeposits = asset.token !== null || nativeOnDeposits;
      for (const address of withDeposits ? depositsAndWallets : walletAddresses) {
        queries.push({ address, token: asset.token });
        currencies.push(asset.currency);
      }
    }
    const balances = await reader.read(queries, block);
    const sums = await this.repository.storeAndSum(
      network.name,
      block,
      {
        currencies,
        addresses: queries.map((query) => query.address),
        balances: balances.map((balance) => balance.toString()),
      },
      mode === 'full',
      lowercase,
    );
    const [books, pending, before] = await Promise.all([
      this.repository.books(network.name),
      this.repository.pendingTransactions(network.name),
      this.repository.previousDifferences(network.name),
    ]);
    const rows = assets.map((asset): ReconciliationRow => {
      const locations = LOCATIONS.flatMap((location): LocationRun[] => {
        const read = sums.find(
          (sum) => sum.currency === asset.currency && sum.location === location,
        );
        const booked = books.find(
          (book) => book.currency === asset.currency && book.location === location,
        );
        if (!read && !booked) return [];
        const onchain = fromBaseUnits(read?.sum ?? 0n, asset.decimals);
        const inBooks = new Decimal(booked?.total ?? 0);
        return [
          {
            location,
            onchain: onchain.toFixed(),
            books: inBooks.toFixed(),
            difference: onchain.minus(inBooks).toFixed(),
            addresses: read?.addresses ?? 0,
          },
        ];
      });
      const sum = (pick: (location: LocationRun) => string) =>
        locations.reduce((total, location) => total.plus(pick(location)), new Decimal(0));
      const onchain = sum((location) => location.onchain);
      const booked = sum((location) => location.books);
      const difference = onchain.minus(booked);
      const earlier = before.get(asset.currency);
      return {
        network: network.name,
        currency: asset.currency,
        onchain: onchain.toFixed(),
        books: booked.toFixed(),
        difference: difference.toFixed(),
        addresses: locations.reduce((total, location) => total + location.addresses, 0),
        block,
        ...(asset.token === null ? { pending } : {}),
        locations,
        persistent:
          earlier !== undefined && persists(signatureOf(difference.toFixed(), locations), earlier),
      };
    });
    await this.repository.saveRuns(rows.map((row) => toStored(row, mode, startedAt)));
    this.report(rows, mode);
    return rows;
  }

  private report(rows: ReconciliationRow[], mode: ReconciliationMode): void {
    for (const row of rows) {
      if (row.persistent) {
        this.logger.error(
          { ...row, mode },
          'Books differ from the chain by the same amounts in two runs in a row: units are on ' +
            'our addresses that the books do not know of, the books hold units the chain does ' +
            'not show, or units are booked to another location than the one holding them',
        );
      } else if (differs(row)) {
        this.logger.warn({ ...row, mode }, 'Books differ from the chain (once so far)');
      }
    }
  }
}

function assetsOf(network: NetworkConfig): Asset[] {
  // In the registry's order of currencies (USDT, USDC), then the native coin.
  const tokens = CURRENCIES.flatMap((currency) => {
    const token = network.tokens[currency];
    return token ? [{ currency, decimals: token.decimals, token: token.contract }] : [];
  });
  const coin = NATIVE_COINS[network.name];
  return [...tokens, { currency: coin.symbol, decimals: coin.decimals, token: null }];
}

function toStored(row: ReconciliationRow, mode: ReconciliationMode, startedAt: Date): StoredRun {
  return {
    network: row.network,
    currency: row.currency,
    block: row.block,
    onchain: row.onchain,
    books: row.books,
    difference: row.difference,
    addresses: row.addresses,
    mode,
    pending: row.pending ?? [],
    locations: row.locations,
    startedAt,
  };
}

/** Whether the row's total or any of its locations differs from the chain. */
export function differs(row: Pick<ReconciliationRow, 'difference' | 'locations'>): boolean {
  return row.difference !== '0' || row.locations.some((location) => location.difference !== '0');
}
