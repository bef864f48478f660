import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NATIVE_COINS, NetworkName, NetworkRegistry } from '@app/chains';
import { PerNetwork } from '@app/chains/networks/per-network';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  fromBaseUnits,
  fundingEntry,
  HoldingAccount,
  LedgerEntry,
  LedgerService,
  networkFeeEntry,
} from '@app/ledger';
import { EvmFundingReader } from './evm-funding-reader';
import { FundingTransactionReader } from './funding-transaction';
import { TreasuryCommandError } from './treasury-command.error';
import { TronFundingReader } from './tron-funding-reader';

export interface BookedLine {
  reference: string;
  account: string;
  currency: string;
  /** Signed whole units: positive into the account. */
  amount: string;
  /** False when the entry was booked before (the command is idempotent). */
  booked: boolean;
}

export interface FundingReport {
  network: string;
  tx_hash: string;
  block: number;
  entries: BookedLine[];
}

/**
 * Books an operator's transaction that moved money between the outside and the service's
 * wallets (docs/treasury.md, "Operator funding"): each watched-token Transfer and the native value
 * into a hot wallet, sweeper or treasury address from an address that is none of them, and each
 * out of the treasury to an outside address (a withdrawal), against `owner_funding`. The fee, when
 * one of our wallets sent it, is booked as for any transaction of ours. Only a mined, succeeded
 * and confirmed transaction is booked; every entry is booked once, by reference.
 */
@Injectable()
export class FundingBooks implements OnModuleDestroy {
  private readonly readers: PerNetwork<FundingTransactionReader>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly ledger: LedgerService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.readers = new PerNetwork((name) => {
      const network = networks.get(name);
      return network.chainFamily === 'TRON'
        ? new TronFundingReader(network, config.trongridApiKey)
        : new EvmFundingReader(network);
    });
  }

  async book(name: NetworkName, txHash: string): Promise<FundingReport> {
    const network = this.networks.get(name);
    const evm = network.chainFamily === 'EVM';
    const hash = evm ? txHash.toLowerCase() : txHash.toLowerCase().replace(/^0x/, '');
    const transaction = await this.readers.get(name).read(hash);
    const refuse = (why: string) => {
      throw new TreasuryCommandError(`${name} transaction ${hash} ${why}; nothing was booked.`);
    };
    if (transaction.state === 'unknown') return refuse('is unknown to the node');
    if (transaction.state === 'pending') return refuse('is not mined yet');
    if (!transaction.succeeded) return refuse('failed on chain (it moved nothing)');
    if (transaction.confirmations < network.confirmations) {
      return refuse(
        `has ${transaction.confirmations} of the ${network.confirmations} confirmations it needs ` +
          '(book it once confirmed)',
      );
    }
    const wallets = await this.wallets(name, evm);
    const roleOf = (address: string) => wallets.get(evm ? address.toLowerCase() : address);
    const entries: LedgerEntry[] = [];
    for (const move of transaction.moves) {
      const into = roleOf(move.to);
      const outOf = roleOf(move.from);
      const amount = fromBaseUnits(move.amountBaseUnits, move.decimals);
      const common = { network: name, txHash: hash, position: move.position };
      if (into && !outOf) {
        entries.push(fundingEntry({ ...common, account: into, currency: move.currency, amount }));
      } else if (outOf === 'treasury' && !into) {
        const withdrawn = amount.negated();
        entries.push(
          fundingEntry({ ...common, account: outOf, currency: move.currency, amount: withdrawn }),
        );
      }
    }
    if (!entries.length) {
      return refuse('moves nothing into the service wallets from outside, nor out of the treasury');
    }
    const payer = roleOf(transaction.from);
    if (payer) {
      entries.push(
        networkFeeEntry({
          network: name,
          txHash: hash,
          feeBaseUnits: transaction.feeBaseUnits,
          payer,
          coin: NATIVE_COINS[name],
        }),
      );
    }
    const posted = await this.dataSource.transaction((manager) =>
      this.ledger.postMany(manager, entries),
    );
    return {
      network: name,
      tx_hash: hash,
      block: transaction.block,
      entries: entries.flatMap((entry, index) =>
        entry.lines
          .filter((line) => !line.amount.isZero())
          .map((line) => ({
            reference: entry.reference,
            account: line.account,
            currency: line.currency,
            amount: line.amount.toFixed(),
            booked: posted[index],
          })),
      ),
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.readers.closeAll();
  }

  /** The network's hot wallet, sweeper and treasury addresses, by the account each books to. */
  private async wallets(name: string, evm: boolean): Promise<Map<string, HoldingAccount>> {
    const rows: Array<{ role: HoldingAccount; address: string }> = await this.dataSource.query(
      `SELECT 'hot_wallet' AS role, address FROM hot_wallets WHERE network = $1
        UNION ALL SELECT role, address FROM treasury_wallets WHERE network = $1`,
      [name],
    );
    return new Map(rows.map((row) => [evm ? row.address.toLowerCase() : row.address, row.role]));
  }
}
