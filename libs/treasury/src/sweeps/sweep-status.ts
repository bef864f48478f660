import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { Currency, NATIVE_COINS, NetworkName, NetworkRegistry } from '@app/chains';
import { EvmSweeper } from './evm-sweeper';
import { EvmTopUpSweeper } from './evm-top-up-sweeper';
import { SweepKeys } from './sweep-keys';
import { SweepPlannerRepository } from './sweep-planner.repository';
import { gasPriceAllowed } from './sweep-policy';
import { TronSweepChains } from './tron-sweep-chains';
import { TronSweepPlanner } from './tron-sweep-planner';

export interface TokenSweepStatus {
  currency: string;
  /** The ledger's asset accounts of the token (what the books say is where). */
  books: { deposit_addresses: string; hot_wallet: string; treasury: string };
  pending_addresses: number;
  holding: { addresses: number; total: string };
  eligible: { addresses: number; total: string; estimated_cost: string };
}

export interface NetworkSweepStatus {
  network: NetworkName;
  sweeper: string | null;
  sweeper_native: string | null;
  gas_price_gwei: string | null;
  deferred: boolean;
  live_sweeps: number;
  /** Why the worker refuses to sweep this network (delegate or keys not as configured), or null. */
  sweeping_refused: string | null;
  frozen_addresses: Array<{ currency: string; address: string; frozen_at: Date }>;
  /**
   * Addresses left alone until `until`: `unswept_in_row` sweeps in a row ended without sweeping
   * them (each doubles the wait; a sweep that moves their tokens clears it).
   */
  backing_off: Array<{ currency: string; address: string; unswept_in_row: number; until: Date }>;
  /**
   * TRON: addresses holding tokens whose sweep waits, since `since`, for a read of their TRX (a
   * node without balance history once a sweep burnt their TRX, or the solidity API failing).
   * Not counted as eligible.
   */
  waiting_for_trx_read: Array<{ currency: string; address: string; since: Date }>;
  tokens: TokenSweepStatus[];
}

/**
 * treasury:status: where the tokens are, and what the policy would sweep now at what cost. Reads
 * only: nothing is ingested, cleared, signed or booked (the planner's read-only assessment).
 */
@Injectable()
export class SweepStatus {
  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly sweeper: EvmSweeper,
    private readonly planner: SweepPlannerRepository,
    private readonly tronChains: TronSweepChains,
    private readonly tronPlanner: TronSweepPlanner,
    private readonly topUpSweeper: EvmTopUpSweeper,
  ) {}

  async report(only?: NetworkName): Promise<NetworkSweepStatus[]> {
    const names = [...this.keys.settings.keys()].filter((name) => !only || name === only);
    const statuses: NetworkSweepStatus[] = [];
    for (const name of names) statuses.push(await this.networkStatus(name));
    return statuses;
  }

  private async networkStatus(name: NetworkName): Promise<NetworkSweepStatus> {
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name)!;
    const sweeper = this.keys.sweeperFor(name);
    const [{ live }]: Array<{ live: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS live FROM sweeps WHERE network = $1 AND status = 'Processing'`,
      [name],
    );
    const status: NetworkSweepStatus = {
      network: name,
      sweeper: sweeper?.address ?? null,
      sweeper_native: null,
      gas_price_gwei: null,
      deferred: false,
      live_sweeps: live,
      sweeping_refused:
        network.chainFamily === 'TRON'
          ? await this.tronPlanner.refusal(name)
          : settings.gasTopUp
            ? await this.topUpSweeper.refusal(name)
            : await this.sweeper.refusal(name),
      frozen_addresses: (await this.planner.frozen(name)).map(
        ({ currency, address, frozen_at }) => ({
          currency,
          address,
          frozen_at,
        }),
      ),
      backing_off: await this.planner.backingOff(name, settings.retryBackoffSeconds, new Date()),
      waiting_for_trx_read: (await this.planner.waitingForTrxRead(name)).map(
        ({ currency, address, since }) => ({ currency, address, since }),
      ),
      tokens: [],
    };
    if (network.chainFamily === 'TRON') return this.tronStatus(status);
    const canSweep = network.chainFamily === 'EVM' && sweeper && settings.sweepDelegate;
    const chain = canSweep ? this.sweeper.chainFor(name) : null;
    const gasPrice = chain ? await chain.gasPrice() : null;
    if (chain && sweeper && gasPrice !== null) {
      status.gas_price_gwei = formatUnits(gasPrice, 'gwei');
      status.deferred = !gasPriceAllowed(gasPrice, settings);
      const wei = await chain.nativeBalance(sweeper.address);
      status.sweeper_native = `${formatUnits(wei, NATIVE_COINS[name].decimals)} ${NATIVE_COINS[name].symbol}`;
    }
    for (const currency of Object.keys(network.tokens) as Currency[]) {
      const books = await this.books(name, currency);
      const token: TokenSweepStatus = {
        currency,
        books,
        pending_addresses: 0,
        holding: { addresses: 0, total: '0' },
        eligible: { addresses: 0, total: '0', estimated_cost: '0' },
      };
      if (chain && gasPrice !== null) {
        const assessment = await this.sweeper.assess(
          network,
          settings,
          currency,
          gasPrice,
          new Date(),
          true,
        );
        const decimals = network.tokens[currency]!.decimals;
        const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);
        const eligible = assessment.funded.filter((candidate) => candidate.decision.sweep);
        token.pending_addresses = assessment.candidates;
        token.holding = {
          addresses: assessment.funded.length,
          total: formatUnits(sum(assessment.funded.map((c) => c.balanceBaseUnits)), decimals),
        };
        token.eligible = {
          addresses: eligible.length,
          total: formatUnits(sum(eligible.map((c) => c.balanceBaseUnits)), decimals),
          estimated_cost: eligible
            .reduce((total, c) => total.plus(c.decision.estimatedCost), new Decimal(0))
            .toFixed(6),
        };
      }
      status.tokens.push(token);
    }
    return status;
  }

  /**
   * TRON: the staking account's TRX (sweeper_native; what it pays activations and bandwidth
   * with), and per token what the policy would sweep now at the chain's prices. No gas cap.
   */
  private async tronStatus(status: NetworkSweepStatus): Promise<NetworkSweepStatus> {
    const name = status.network;
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name)!;
    const chain = status.sweeper ? await this.tronChains.chainFor(name) : null;
    const prices = chain ? await this.tronPlanner.prices(chain) : null;
    if (chain && status.sweeper) {
      const staking = await chain.transport.accountState(status.sweeper);
      const coin = NATIVE_COINS[name];
      status.sweeper_native = `${formatUnits(staking.balanceSun, coin.decimals)} ${coin.symbol}`;
    }
    for (const currency of Object.keys(network.tokens) as Currency[]) {
      const token: TokenSweepStatus = {
        currency,
        books: await this.books(name, currency),
        pending_addresses: 0,
        holding: { addresses: 0, total: '0' },
        eligible: { addresses: 0, total: '0', estimated_cost: '0' },
      };
      if (chain && prices) {
        const assessment = await this.tronPlanner.assess(
          network,
          settings,
          chain,
          currency,
          prices,
          new Date(),
          true,
        );
        const decimals = network.tokens[currency]!.decimals;
        const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);
        const waiting = new Set(
          status.waiting_for_trx_read
            .filter((row) => row.currency === currency)
            .map((row) => row.address),
        );
        const eligible = assessment.funded.filter(
          (candidate) => candidate.decision.sweep && !waiting.has(candidate.address),
        );
        token.pending_addresses = assessment.candidates;
        token.holding = {
          addresses: assessment.funded.length,
          total: formatUnits(sum(assessment.funded.map((c) => c.balanceBaseUnits)), decimals),
        };
        token.eligible = {
          addresses: eligible.length,
          total: formatUnits(sum(eligible.map((c) => c.balanceBaseUnits)), decimals),
          estimated_cost: eligible
            .reduce((total, c) => total.plus(c.decision.estimatedCost), new Decimal(0))
            .toFixed(6),
        };
      }
      status.tokens.push(token);
    }
    return status;
  }

  private async books(network: string, currency: string): Promise<TokenSweepStatus['books']> {
    const rows: Array<{ kind: string; balance: string }> = await this.dataSource.query(
      `SELECT kind, sum(balance)::text AS balance FROM ledger_balances
        WHERE network = $1 AND currency = $2 AND kind IN ('deposits', 'hot_wallet', 'treasury')
        GROUP BY kind`,
      [network, currency],
    );
    const of = (kind: string) =>
      new Decimal(rows.find((row) => row.kind === kind)?.balance ?? 0).toFixed();
    return {
      deposit_addresses: of('deposits'),
      hot_wallet: of('hot_wallet'),
      treasury: of('treasury'),
    };
  }
}
