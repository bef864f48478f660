import { Injectable, Logger } from '@nestjs/common';
import Decimal from 'decimal.js';
import { formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import {
  Currency,
  EthersPayoutTransport,
  NATIVE_COINS,
  NetworkConfig,
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
} from '@app/chains';
import { fromBaseUnits } from '@app/ledger';
import { EvmSweeper, MAX_LIVE_SWEEPS, SweepTickReport } from './evm-sweeper';
import { EvmTopUpJournalRepository } from './evm-top-up-journal.repository';
import { signDepositTransfer, signTopUp, TOP_UP_GAS_LIMIT } from './evm-top-up-signing';
import { topUpValue } from './evm-top-up-value';
import { decideOnCost } from './sweep-cost-policy';
import { SweepKeys } from './sweep-keys';
import { SweepDestination, SweepJournalRepository } from './sweep-journal.repository';
import { PendingDepositAddress, SweepPlannerRepository } from './sweep-planner.repository';
import { destinationFor, gasPriceAllowed, SweepDecision } from './sweep-policy';
import { provenBlock, readableAt, sweeperIsHotWallet } from './sweep-safety';
import { StrangerCoin } from './stranger-coin';
import { SweepBroadcaster } from './sweep-broadcaster';
import { NetworkTreasurySettings } from './treasury-settings';

/** A token transfer's gas, for the policy's estimate only (the sweep estimates the very call). */
const TRANSFER_GAS_ESTIMATE = 65_000n;
const CANDIDATES_PER_TICK = 2_000;
const WEI_PER_COIN = new Decimal(10).pow(18);

export interface TopUpCandidate extends PendingDepositAddress {
  /** The confirmed block its balance was read at. */
  readAt: number;
  balanceBaseUnits: bigint;
  decision: SweepDecision;
}

/**
 * EVM sweeps without EIP-7702, for nodes that refuse type-4 transactions (`gasTopUp: true`):
 * per address, the sweeper sends exactly the gas the token transfer may burn (its gas limit x
 * max fee, less what is left there of our own earlier top-ups; coin others sent is not ours to
 * spend) on its own nonce lane (none when our coin there covers it), then the deposit address
 * sends its whole token balance to the hot wallet or treasury itself. Both transactions are
 * signed and journaled with the sweep before the top-up is sent.
 */
@Injectable()
export class EvmTopUpSweeper {
  private readonly logger = new Logger(EvmTopUpSweeper.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly transports: PayoutTransports,
    private readonly planner: SweepPlannerRepository,
    private readonly journal: SweepJournalRepository,
    private readonly topUps: EvmTopUpJournalRepository,
    private readonly evm: EvmSweeper,
    private readonly strangers: StrangerCoin,
    private readonly broadcaster: SweepBroadcaster,
  ) {}

  async plan(name: NetworkName, now = new Date()): Promise<SweepTickReport> {
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name);
    const report: SweepTickReport = { network: name, candidates: 0, emptied: 0, sweeps: [] };
    if (!settings?.gasTopUp || !this.keys.sweeperFor(name)) return report;
    if (await this.refusal(name)) return { ...report, refused: true };
    const live = await this.topUps.live(name);
    if (live.length >= MAX_LIVE_SWEEPS) return { ...report, deferred: 'lane_full' };
    const gasPrice = await this.evm.chainFor(name).gasPrice();
    if (!gasPriceAllowed(gasPrice, settings)) {
      this.logger.log(
        { network: name, gasPriceGwei: formatUnits(gasPrice, 'gwei') },
        'Gas top-up sweeps deferred: gas above the cap',
      );
      return { ...report, deferred: 'gas_price' };
    }
    const busy = new Set(live.map((sweep) => sweep.address.toLowerCase()));
    let room = MAX_LIVE_SWEEPS - live.length;
    for (const currency of Object.keys(network.tokens) as Currency[]) {
      const candidates = await this.assess(network, settings, currency, gasPrice, now, report);
      for (const candidate of candidates) {
        if (room <= 0) break;
        if (!candidate.decision.sweep || busy.has(candidate.address.toLowerCase())) continue;
        const sweepId = await this.start(network, settings, currency, candidate).catch(
          (error: unknown) => {
            this.logger.warn(
              {
                address: candidate.address,
                error: error instanceof Error ? error.message : String(error),
              },
              'Gas top-up sweep not started this pass',
            );
            return null;
          },
        );
        if (!sweepId) continue;
        busy.add(candidate.address.toLowerCase());
        report.sweeps.push(sweepId);
        room -= 1;
      }
    }
    return report;
  }

  /** The sweeper key must not be the hot wallet's: the two nonce lanes would collide. */
  async refusal(name: NetworkName): Promise<string | null> {
    const sweeper = this.keys.sweeperFor(name);
    if (!sweeper) return null;
    const refusal = sweeperIsHotWallet('EVM', sweeper.address, await this.hotWallet(name));
    if (refusal) this.logger.error({ network: name, refusal }, 'Gas top-up sweeping refused');
    return refusal;
  }

  /** Pending addresses, balances read in bulk at one block; those read empty are cleared. */
  private async assess(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    gasPrice: bigint,
    now: Date,
    report: SweepTickReport,
  ): Promise<TopUpCandidate[]> {
    const token = network.tokens[currency]!;
    const listed = await this.planner.candidates(network.name, currency, {
      family: 'EVM',
      fingerprint: this.keys.fingerprint('EVM'),
      limit: CANDIDATES_PER_TICK,
      now,
      backoffSeconds: settings.retryBackoffSeconds,
    });
    report.candidates += listed.length;
    if (!listed.length) return [];
    const chain = this.evm.chainFor(network.name);
    // Read as deep as deposits are confirmed: a zero at the unconfirmed head could come from a
    // sibling block without a late payment the watcher confirms later at or below that height.
    const block = provenBlock(await chain.headBlock(), network.confirmations);
    // A read before a known transfer's block proves nothing about it: those wait for the node.
    const pending = readableAt(listed, block);
    if (!pending.length) return [];
    const balances = await chain.tokenBalances(
      token.contract,
      pending.map((candidate) => candidate.address),
      block,
    );
    const empty = pending.filter((candidate) => balances.get(candidate.address) === 0n);
    await this.planner.markEmpty(
      network.name,
      currency,
      empty.map((candidate) => candidate.address),
      block,
    );
    report.emptied += empty.length;
    // Both transactions' gas, priced for the policy (deliberately high nativeCoinPrice).
    const cost = new Decimal(((TOP_UP_GAS_LIMIT + TRANSFER_GAS_ESTIMATE) * gasPrice).toString())
      .div(WEI_PER_COIN)
      .mul(settings.nativeCoinPrice);
    return pending
      .filter((candidate) => (balances.get(candidate.address) ?? 0n) > 0n)
      .map((candidate) => {
        const balanceBaseUnits = balances.get(candidate.address)!;
        const balance = fromBaseUnits(balanceBaseUnits, token.decimals);
        const decision = decideOnCost(balance, candidate.pendingSince, cost, settings, now);
        return { ...candidate, readAt: block, balanceBaseUnits, decision };
      });
  }

  /** Signs and journals the top-up and the transfer, then sends the top-up. */
  private async start(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    candidate: TopUpCandidate,
  ): Promise<string | null> {
    const token = network.tokens[currency]!;
    const sweeper = this.keys.sweeperFor(network.name)!;
    const transport = this.transports.transportFor(network.name) as EthersPayoutTransport;
    const chain = this.evm.chainFor(network.name);
    const hotWallet = await this.hotWallet(network.name);
    const destination = await this.destination(network, settings, currency, hotWallet);
    const destinationAddress = destination === 'treasury' ? settings.treasuryAddress : hotWallet;
    if (!destinationAddress || !hotWallet) return null;
    const amount = candidate.balanceBaseUnits;
    // Everything the node must tell, read before the transaction that journals the sweep.
    const gasLimit = await transport.estimateTransferGas(candidate.address, {
      tokenContract: token.contract,
      to: destinationAddress,
      amountBaseUnits: amount,
    });
    const fees = await transport.suggestFees();
    // A third party's coin there is booked as theirs, and never spent on our gas (below).
    await this.strangers.detectEvm(network.name, [candidate.address], candidate.readAt);
    const held = await chain.nativeBalance(candidate.address);
    const coin = NATIVE_COINS[network.name];
    const ours = await this.topUps.ownCoin(network.name, candidate.address, coin);
    const value = topUpValue(gasLimit * fees.maxFeePerGas, held, ours);
    const depositNonce = await transport.transactionCount(candidate.address, 'pending');
    const nodeCount = await transport.transactionCount(sweeper.address, 'pending');
    const transfer = await signDepositTransfer(
      this.keys.depositPrivateKey('EVM', candidate.derivationIndex),
      {
        chainId: network.chainId,
        token: token.contract,
        to: destinationAddress,
        amount,
        nonce: depositNonce,
        gasLimit,
        fees,
      },
      {
        tokens: Object.values(network.tokens).map((entry) => entry!.contract),
        destinations: [hotWallet, ...(settings.treasuryAddress ? [settings.treasuryAddress] : [])],
      },
    );
    const sweepId = newId('sw');
    const sweep = {
      id: sweepId,
      network: network.name,
      currency,
      tokenContract: token.contract,
      tokenDecimals: token.decimals,
      destination,
      destinationAddress,
      sweeperAddress: sweeper.address,
    };
    const expectedAmount = fromBaseUnits(amount, token.decimals).toFixed();
    if (value === 0n) {
      // Our own coin left there by earlier top-ups covers the gas: the transfer alone.
      const only = await this.dataSource.transaction(async (manager) => {
        await this.topUps.insertTransferOnly(manager, {
          ...sweep,
          address: candidate.address,
          derivationIndex: candidate.derivationIndex,
          expectedAmount,
        });
        await this.topUps.insertTransfer(
          manager,
          sweepId,
          network.name,
          { ...transfer, ...fees, gasLimit },
          1,
        );
        return (await this.topUps.attempts(sweepId, manager))[0];
      });
      await this.broadcaster.broadcast(network.name, only);
      return sweepId;
    }
    // The node's own estimate: 21,000 is refused where L1 data is paid in L2 gas (Arbitrum).
    const topUpGas = await chain.plainTransferGas(sweeper.address, candidate.address, value);
    const topUp = await this.dataSource.transaction(async (manager) => {
      const nonce = await this.journal.lockNextNonce(
        manager,
        network.name,
        sweeper.address,
        nodeCount,
      );
      if (nonce === null) return null;
      const signed = await signTopUp(sweeper.privateKey(), {
        chainId: network.chainId,
        to: candidate.address,
        value,
        nonce,
        gasLimit: topUpGas,
        fees,
      });
      await this.journal.insert(
        manager,
        {
          ...sweep,
          items: [
            {
              address: candidate.address,
              derivationIndex: candidate.derivationIndex,
              expectedAmount,
              authorized: false,
            },
          ],
        },
        nonce,
        { ...signed, ...fees, gasLimit: topUpGas },
      );
      await this.topUps.markTopUp(manager, sweepId);
      await this.topUps.insertTransfer(manager, sweepId, network.name, {
        ...transfer,
        ...fees,
        gasLimit,
      });
      return (await this.journal.attempts(sweepId, manager))[0];
    });
    if (!topUp) {
      this.logger.warn({ network: network.name }, 'Sweeper not registered: no top-up signed');
      return null;
    }
    await this.broadcaster.broadcast(network.name, topUp);
    return sweepId;
  }

  private async destination(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    hotWallet: string | null,
  ): Promise<SweepDestination> {
    const target = settings.hotWalletTarget[currency];
    if (!settings.treasuryAddress || target === undefined) return 'hot_wallet';
    if (!hotWallet) return 'treasury';
    const token = network.tokens[currency]!;
    const balances = await this.evm
      .chainFor(network.name)
      .tokenBalances(token.contract, [hotWallet]);
    const held = fromBaseUnits(balances.get(hotWallet) ?? 0n, token.decimals);
    const inbound = new Decimal(await this.journal.inboundToHotWallet(network.name, currency));
    return destinationFor(held.plus(inbound), target, true);
  }

  private async hotWallet(network: NetworkName): Promise<string | null> {
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT address FROM hot_wallets WHERE network = $1`,
      [network],
    );
    return rows[0]?.address ?? null;
  }
}
