import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NATIVE_COINS, NetworkName, NetworkRegistry } from '@app/chains';
import { PerNetwork } from '@app/chains/networks/per-network';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  fromBaseUnits,
  fundingEntry,
  HoldingAccount,
  internalTransferEntry,
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
 * Books an operator's transaction that moved money of the service's wallets (docs/treasury.md,
 * "Operator commands (books)"): each watched-token Transfer and the native value into a hot
 * wallet, sweeper or treasury address (current or replaced by a rotation) from outside is funding,
 * each out of one of them to outside a withdrawal, both against `owner_funding`; one between two
 * of them moves the amount from one location to the other. The fee, when one of our wallets sent
 * the transaction, is booked as for any transaction of ours (alone, for a transaction that moved
 * nothing: a transaction that took a payout's nonce, a TRON freeze). Refused: transactions of our
 * own machinery (a journaled sweep, payout or refund hash) and any that a deposit address sent or
 * that moves value from or to one (sweeps and the deposit watcher book those), which booked here
 * would count twice. Only a mined, succeeded and confirmed transaction is booked; every entry is
 * booked once, by reference.
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
    const journaled = await this.journaledAs(hash);
    if (journaled) {
      return refuse(`is a ${journaled} of the service, booked by its own machinery`);
    }
    const key = (address: string) => (evm ? address.toLowerCase() : address);
    const deposits = await this.depositAddresses([
      transaction.from,
      ...transaction.moves.flatMap((move) => [move.from, move.to]),
    ]);
    if (deposits.has(key(transaction.from))) {
      return refuse(`was sent by the deposit address ${transaction.from} (sweeps book those)`);
    }
    const touching = transaction.moves.find(
      (move) => deposits.has(key(move.from)) || deposits.has(key(move.to)),
    );
    if (touching) {
      return refuse(
        `moves ${touching.currency} from ${touching.from} to ${touching.to}, a deposit address ` +
          '(sweeps and the deposit watcher book those)',
      );
    }
    const wallets = await this.wallets(name, evm);
    const roleOf = (address: string) => wallets.get(key(address));
    const entries: LedgerEntry[] = [];
    let ours = false;
    for (const move of transaction.moves) {
      const into = roleOf(move.to);
      const outOf = roleOf(move.from);
      if (!into && !outOf) continue;
      ours = true;
      const amount = fromBaseUnits(move.amountBaseUnits, move.decimals);
      const common = { network: name, txHash: hash, position: move.position };
      if (amount.isZero() || into === outOf) {
        // Within one location (an old address of a role to its new one): the books do not move.
        continue;
      } else if (into && outOf) {
        entries.push(
          internalTransferEntry({
            ...common,
            from: outOf,
            to: into,
            currency: move.currency,
            amount,
          }),
        );
      } else if (into) {
        entries.push(fundingEntry({ ...common, account: into, currency: move.currency, amount }));
      } else if (outOf) {
        const withdrawn = amount.negated();
        entries.push(
          fundingEntry({ ...common, account: outOf, currency: move.currency, amount: withdrawn }),
        );
      }
    }
    const payer = roleOf(transaction.from);
    if (!ours && !payer) {
      return refuse('moves nothing of the service wallets and none of them sent it');
    }
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
    if (!entries.length) return refuse('moves nothing between the service locations');
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

  /**
   * The network's hot wallet, sweeper and treasury addresses, current and replaced by a rotation
   * (wallet_addresses), by the account each books to (the TRON staking account is the sweeper's).
   */
  private async wallets(name: string, evm: boolean): Promise<Map<string, HoldingAccount>> {
    const rows: Array<{ role: HoldingAccount; address: string }> = await this.dataSource.query(
      `SELECT role, address FROM wallet_addresses WHERE network = $1
        UNION SELECT 'hot_wallet', address FROM hot_wallets WHERE network = $1
        UNION SELECT role, address FROM treasury_wallets WHERE network = $1`,
      [name],
    );
    return new Map(rows.map((row) => [evm ? row.address.toLowerCase() : row.address, row.role]));
  }

  /**
   * Which of `addresses` are deposit (pay) addresses, as keys (lowercase on EVM). Asked in the
   * form the reader gives (checksummed on EVM, base58 on TRON) and in lowercase, through the
   * unique index on pay_addresses.address.
   */
  private async depositAddresses(addresses: string[]): Promise<Set<string>> {
    const key = (address: string) => (address.startsWith('0x') ? address.toLowerCase() : address);
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT address FROM pay_addresses WHERE address = ANY($1::text[])`,
      [[...new Set(addresses.flatMap((address) => [address, address.toLowerCase()]))]],
    );
    return new Set(rows.map((row) => key(row.address)));
  }

  /** What the service's own journal sent this transaction as, if it did. */
  private async journaledAs(hash: string): Promise<string | null> {
    const rows: Array<{ what: string }> = await this.dataSource.query(
      `SELECT 'sweep' AS what FROM sweep_attempts WHERE lower(tx_hash) IN ($1, $2)
       UNION ALL SELECT 'sweep' FROM sweeps WHERE lower(tx_hash) IN ($1, $2)
       UNION ALL SELECT 'payout or refund' FROM payout_attempts WHERE lower(tx_hash) IN ($1, $2)
       UNION ALL SELECT 'payout or refund' FROM payouts WHERE lower(tx_hash) IN ($1, $2)
       UNION ALL SELECT 'refund' FROM refunds WHERE lower(tx_hash) IN ($1, $2)
       LIMIT 1`,
      [hash, hash.startsWith('0x') ? hash.slice(2) : `0x${hash}`],
    );
    return rows.length ? rows[0].what : null;
  }
}
