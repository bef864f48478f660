import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { CURRENCIES, NATIVE_COINS, NetworkConfig, NetworkName, NetworkRegistry } from '@app/chains';
import { fromBaseUnits } from '@app/ledger';
import { BalanceQuery } from './balance-reads';
import { ChainBalanceReaders } from './chain-balance-readers';
import { ReadBalance, ReconciliationRepository, StoredRun } from './reconciliation.repository';

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
  /** The difference was there in the previous run too: the alert is raised. */
  persistent: boolean;
}

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
    const queries: Array<BalanceQuery & { currency: string }> = [];
    const walletAddresses = [
      ...new Set(
        wallets.map((wallet) => (lowercase ? wallet.address.toLowerCase() : wallet.address)),
      ),
    ];
    for (const asset of assets) {
      // Deposit addresses hold tokens only (the sweeper pays every sweep's gas), except where gas
      // top-up sweeps put native coin on them: then the books hold it (deposits:N:COIN) too.
      const withDeposits = asset.token !== null || nativeOnDeposits;
      const addresses = withDeposits
        ? [...new Set([...deposits, ...walletAddresses])]
        : walletAddresses;
      for (const address of addresses) {
        queries.push({ address, token: asset.token, currency: asset.currency });
      }
    }
    const balances = await reader.read(queries, block);
    const reads: ReadBalance[] = queries.map((query, index) => ({
      currency: query.currency,
      address: query.address,
      balance: balances[index],
    }));
    const totals = await this.repository.storeAndSum(network.name, block, reads, mode === 'full');
    const [books, pending, before] = await Promise.all([
      this.repository.books(network.name),
      this.repository.pendingTransactions(network.name),
      this.repository.previousDifferences(network.name),
    ]);
    const rows = assets.map((asset): ReconciliationRow => {
      const total = totals.get(asset.currency) ?? { sum: 0n, addresses: 0 };
      const onchain = fromBaseUnits(total.sum, asset.decimals);
      const booked = new Decimal(books.get(asset.currency) ?? 0);
      const difference = onchain.minus(booked);
      const earlier = before.get(asset.currency);
      return {
        network: network.name,
        currency: asset.currency,
        onchain: onchain.toFixed(),
        books: booked.toFixed(),
        difference: difference.toFixed(),
        addresses: total.addresses,
        block,
        ...(asset.token === null ? { pending } : {}),
        persistent: !difference.isZero() && earlier !== undefined && !new Decimal(earlier).isZero(),
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
          'Books differ from the chain in two runs in a row: units are on our addresses that the ' +
            'books do not know of, or the books hold units the chain does not show',
        );
      } else if (row.difference !== '0') {
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
    startedAt,
  };
}
