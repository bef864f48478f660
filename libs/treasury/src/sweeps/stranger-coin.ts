import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NATIVE_COINS, NetworkName, NetworkRegistry } from '@app/chains';
import { EvmRpc } from '@app/chains/adapters/evm/evm-rpc';
import { fromBaseUnits, LedgerAccounts, LedgerService } from '@app/ledger';

/** The ledger kind of a third party's native coin booked as owed back, and of its reversal. */
export const UNMATCHED_NATIVE_KIND = 'unmatched_native';
/** Appended to an `unmatched_native` reference by its reversal when its chain is forgotten. */
export const FORGOTTEN_SUFFIX = ':forgotten';

/** EVM addresses compare without case; TRON's base58 ones exactly. */
const SAME_ITEM = `CASE WHEN $2 LIKE '0x%' THEN lower(i.address) = lower($2) ELSE i.address = $2 END`;

/**
 * Native coin (ETH, BNB, POL, TRX) a third party sent to one of our deposit addresses. It is not
 * ours: booked, when a sweep is about to take the address's tokens, as owed back to its sender
 * like an unmatched token transfer: `deposits:N:COIN` +amount against `unmatched:N:COIN`
 * (reference `unmatched_native:<network>:<address>:<block>`), and left on the address (it never
 * pays our gas: a top-up subtracts only the coin the books say is ours). What is booked is the
 * address's balance, read at a block every one of its sweeps is booked by, less everything the
 * books already hold there: our top-ups less the fees its transfers burnt (as corrected once
 * final: `network_fee_adjustment`, or by an operator: `network_fee_operator`, docs/treasury.md
 * "Fees become final"), and strangers' coin booked before. Never read while one of its sweeps
 * is in flight, nor from a block older than its newest sweep (a lagging backend would show coin
 * since burnt as gas): only a positive excess at a settled state is booked, so nothing is ever
 * booked twice, and a read that shows less than the books (a lagging node) books nothing.
 */
@Injectable()
export class StrangerCoin implements OnModuleDestroy {
  private readonly logger = new Logger(StrangerCoin.name);
  private readonly rpcs = new Map<NetworkName, EvmRpc>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly ledger: LedgerService,
  ) {}

  onModuleDestroy(): void {
    for (const rpc of this.rpcs.values()) rpc.close();
  }

  /**
   * EVM: the addresses' native balances at `block` (confirmed: the sweep planner's proven
   * block), each excess over the books booked. A node's failure books nothing and stops no sweep.
   */
  async detectEvm(name: NetworkName, addresses: string[], block: number): Promise<void> {
    try {
      const rpc = this.rpcFor(name);
      const held = await Promise.all(
        addresses.map((address) =>
          rpc.call('eth_getBalance', (provider) => provider.getBalance(address, block)),
        ),
      );
      for (const [index, address] of addresses.entries()) {
        await this.book(name, address, held[index], block);
      }
    } catch (error) {
      this.logger.warn(
        { network: name, error: error instanceof Error ? error.message : String(error) },
        'Native coin on deposit addresses not read this pass',
      );
    }
  }

  /**
   * Books what `heldBaseUnits` (read at `block`) holds beyond what the books say is on the
   * address; the amount booked (0 when nothing is), or null when the read proves nothing (a
   * sweep of the address in flight, or one booked in a later block than the read's) or the
   * excess could not be booked (its reference taken), or a fee of the address is not final yet.
   * Alone per network: passes never overlap.
   */
  async book(
    network: NetworkName,
    address: string,
    heldBaseUnits: bigint,
    block: number,
  ): Promise<bigint | null> {
    const coin = NATIVE_COINS[network];
    return this.dataSource.transaction(async (manager) => {
      const [sweeps]: Array<{
        live: boolean | null;
        newest: string | null;
        unsettled: boolean | null;
      }> = await manager.query(
        `SELECT bool_or(s.status = 'Processing') AS live, max(s.block_number)::text AS newest,
                bool_or(EXISTS (
                  SELECT 1 FROM sweep_attempts a
                    JOIN network_fee_receipts r ON r.network = s.network AND r.tx_hash = a.tx_hash
                   WHERE a.sweep_id = s.id AND r.final_at IS NULL)) AS unsettled
           FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
          WHERE s.network = $1 AND ${SAME_ITEM} AND s.chain_forgotten_at IS NULL`,
        [network, address],
      );
      // A sweep in flight may have moved coin the books do not show yet; a read older than the
      // newest sweep may show coin its transfer has since burnt; and a fee of the address not yet
      // final may still be corrected (a reorg mined its transfer again at another price): the
      // difference booked here as a stranger's coin would be booked again by the correction
      // (review r9d, N1).
      if (sweeps.live || sweeps.unsettled) return null;
      if (sweeps.newest !== null && Number(sweeps.newest) > block) return null;
      const account = LedgerAccounts.deposits(network, coin.symbol);
      const [{ booked }]: Array<{ booked: string }> = await manager.query(
        `SELECT trunc(COALESCE(sum(l.amount), 0) * power(10::numeric, $4))::text AS booked
           FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $3
          WHERE e.reference LIKE 'unmatched_native:' || $1 || ':' || $2 || ':%'
             OR e.reference IN (
                  SELECT r || $1 || ':' || a.tx_hash
                    FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
                    JOIN sweep_attempts a ON a.sweep_id = s.id
                   CROSS JOIN (VALUES ('sweep_top_up:'), ('network_fee:'),
                                      ('network_fee_adjustment:'),
                                      ('network_fee_operator:')) AS p(r)
                   WHERE s.network = $1 AND ${SAME_ITEM} AND s.chain_forgotten_at IS NULL)`,
        [network, address, account, coin.decimals],
      );
      const stranger = heldBaseUnits - BigInt(booked);
      if (stranger <= 0n) return 0n;
      const amount = fromBaseUnits(stranger, coin.decimals);
      const line = { currency: coin.symbol, network };
      // A forgotten chain (chains:forget) may have booked this block's reference already: the new
      // chain's entry takes the next free one (the old one and its reversal stay).
      const base = `unmatched_native:${network}:${address}:${block}`;
      const [{ forgotten }]: Array<{ forgotten: number }> = await manager.query(
        `SELECT count(*)::int AS forgotten FROM ledger_entries
          WHERE reference = $1 || $2
             OR (left(reference, length($1) + 6) = $1 || ':chain' AND right(reference, length($2)) = $2)`,
        [base, FORGOTTEN_SUFFIX],
      );
      const reference = forgotten ? `${base}:chain${forgotten + 1}` : base;
      const posted = await this.ledger.post(manager, {
        reference,
        kind: UNMATCHED_NATIVE_KIND,
        lines: [
          { account, amount, ...line },
          {
            account: LedgerAccounts.unmatched(network, coin.symbol),
            amount: amount.negated(),
            ...line,
          },
        ],
      });
      if (!posted) {
        // The reference is taken by an entry this count does not know of (a chain forgotten by
        // a release before the reversals): nothing booked, so the sweep waits.
        this.logger.error(
          { network, address, block, reference, amount: amount.toFixed() },
          'Native coin of a third party not booked: its reference is taken; the sweep waits',
        );
        return null;
      }
      this.logger.warn(
        { network, address, block, amount: amount.toFixed() },
        'Native coin of a third party on a deposit address booked as unmatched',
      );
      return stranger;
    });
  }

  /**
   * Whether a transfer of one of the address's sweeps (of a chain not forgotten) burnt its native
   * coin (a fee booked out of `deposits:N:COIN`): from then on a read from a state before that
   * burn would show the burnt coin as new, so only a read proven to be of a later block counts.
   */
  async burnt(network: NetworkName, address: string): Promise<boolean> {
    const account = LedgerAccounts.deposits(network, NATIVE_COINS[network].symbol);
    const [{ burnt }]: Array<{ burnt: boolean }> = await this.dataSource.query(
      `SELECT EXISTS (
         SELECT 1 FROM sweeps s JOIN sweep_items i ON i.sweep_id = s.id
           JOIN sweep_attempts a ON a.sweep_id = s.id AND a.step = 'transfer'
           JOIN ledger_entries e ON e.reference = 'network_fee:' || $1 || ':' || a.tx_hash
           JOIN ledger_lines l ON l.entry_id = e.id AND l.account = $3
          WHERE s.network = $1 AND ${SAME_ITEM} AND s.chain_forgotten_at IS NULL) AS burnt`,
      [network, address, account],
    );
    return burnt;
  }

  private rpcFor(name: NetworkName): EvmRpc {
    let rpc = this.rpcs.get(name);
    if (!rpc) {
      rpc = new EvmRpc(this.networks.get(name));
      this.rpcs.set(name, rpc);
    }
    return rpc;
  }
}
