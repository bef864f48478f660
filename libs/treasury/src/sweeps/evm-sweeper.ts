import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Decimal from 'decimal.js';
import { Authorization, formatUnits } from 'ethers';
import { DataSource } from 'typeorm';
import { newId } from '@app/common';
import {
  Currency,
  EvmPayoutTransport,
  NetworkConfig,
  NetworkName,
  NetworkRegistry,
  PayoutTransports,
} from '@app/chains';
import { signSweepAuthorization } from '@app/chains/sweeps/evm-sweep-authorization';
import { encodeSweepMany } from '@app/chains/sweeps/evm-sweep-calldata';
import { signSweepBatch } from '@app/chains/sweeps/evm-sweep-transaction';
import { AssessedAddress, assessFundedAddress, TokenAssessment } from './evm-sweep-assessment';
import { EvmSweepChain } from './evm-sweep-chain';
import { SweepKeys } from './sweep-keys';
import { SweepJournalRepository, SweepDestination } from './sweep-journal.repository';
import { SweepPlannerRepository } from './sweep-planner.repository';
import { cappedSweepFees, destinationFor, gasPriceAllowed } from './sweep-policy';
import { SweepBroadcaster } from './sweep-broadcaster';
import { StrangerCoin } from './stranger-coin';
import { delegateMismatches, provenBlock, readableAt, sweeperIsHotWallet } from './sweep-safety';
import { NetworkTreasurySettings } from './treasury-settings';

/** Addresses read per token per tick: the oldest pending first. */
const CANDIDATES_PER_TICK = 5_000;
/** Sweeps in flight per network: a stuck lane stops here instead of signing ever more. */
export const MAX_LIVE_SWEEPS = 20;
// Gas limits: generous, unused gas is not paid (the sweeper only has to cover the limit).
const GAS_LIMIT_BASE = 60_000n;
const GAS_LIMIT_PER_ADDRESS = 100_000n;

export interface SweepTickReport {
  network: NetworkName;
  deferred?: 'gas_price' | 'lane_full';
  /** The delegate or the keys do not match the configuration: nothing signed (see refusal). */
  refused?: boolean;
  candidates: number;
  emptied: number;
  sweeps: string[];
  /** TRON: funded addresses whose sweep waits for a read of their TRX this pass. */
  deferredTrxRead?: number;
}

/**
 * Plans and signs EVM sweeps: reads the pending deposit addresses' balances in bulk, keeps those
 * the policy allows, and for each batch of up to 50 journals the sweep (its sweeper nonce and
 * signed transaction, with the EIP-7702 authorizations of addresses not yet delegated) before the
 * first broadcast. The sweeper pays all gas; deposit addresses never hold native coin.
 */
@Injectable()
export class EvmSweeper implements OnModuleDestroy {
  private readonly logger = new Logger(EvmSweeper.name);
  private readonly chains = new Map<NetworkName, EvmSweepChain>();
  /** Per network, the delegate checked against the configuration in this process, and why not. */
  private readonly checked = new Map<NetworkName, { delegate: string; refusal: string | null }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly networks: NetworkRegistry,
    private readonly keys: SweepKeys,
    private readonly transports: PayoutTransports,
    private readonly planner: SweepPlannerRepository,
    private readonly journal: SweepJournalRepository,
    private readonly broadcaster: SweepBroadcaster,
    private readonly strangers: StrangerCoin,
  ) {}

  chainFor(name: NetworkName): EvmSweepChain {
    let chain = this.chains.get(name);
    if (!chain) {
      chain = new EvmSweepChain(this.networks.get(name));
      this.chains.set(name, chain);
    }
    return chain;
  }

  onModuleDestroy(): void {
    for (const chain of this.chains.values()) chain.close();
  }

  /** One planning pass over every token of the network; the caller holds the network's lock. */
  async plan(name: NetworkName, now = new Date()): Promise<SweepTickReport> {
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name);
    const report: SweepTickReport = { network: name, candidates: 0, emptied: 0, sweeps: [] };
    if (!settings?.sweepDelegate || !this.keys.sweeperFor(name)) return report;
    const live = await this.journal.live(name);
    if (live.length >= MAX_LIVE_SWEEPS) return { ...report, deferred: 'lane_full' };
    const chain = this.chainFor(name);
    const gasPrice = await chain.gasPrice();
    if (!gasPriceAllowed(gasPrice, settings)) {
      this.logger.log(
        { network: name, gasPriceGwei: formatUnits(gasPrice, 'gwei') },
        'Sweeps deferred: gas above the cap',
      );
      return { ...report, deferred: 'gas_price' };
    }
    let room = MAX_LIVE_SWEEPS - live.length;
    for (const currency of Object.keys(network.tokens) as Currency[]) {
      if (room <= 0) break;
      const made = await this.planToken(network, settings, currency, gasPrice, now, room, report);
      room -= made;
    }
    return report;
  }

  private async planToken(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    gasPrice: bigint,
    now: Date,
    room: number,
    report: SweepTickReport,
  ): Promise<number> {
    const assessment = await this.assess(network, settings, currency, gasPrice, now);
    report.candidates += assessment.candidates;
    report.emptied += assessment.emptied;
    const eligible = assessment.funded.filter((candidate) => candidate.decision.sweep);
    // Checked only when something would be signed: reading and clearing addresses needs no
    // delegate, and a backend that cannot see it yet (lagging) delays only the signing.
    if (eligible.length && (await this.refusal(network.name))) {
      report.refused = true;
      return 0;
    }
    let made = 0;
    for (let start = 0; start < eligible.length && made < room; start += settings.batchSize) {
      const batch = eligible.slice(start, start + settings.batchSize);
      // A third party's native coin there is booked as theirs before the sweep (stranger-coin.ts).
      await this.strangers.detectEvm(
        network.name,
        batch.map((item) => item.address),
        assessment.block!,
      );
      const sweepId = await this.signBatch(network, settings, currency, batch);
      if (!sweepId) break;
      report.sweeps.push(sweepId);
      made += 1;
    }
    return made;
  }

  /**
   * The pending addresses of a token, their balances read in bulk at one block, and the policy's
   * decision for each one holding something. Addresses read empty at a block past every transfer
   * known for them are cleared (the positive proof that nothing is left to sweep). `readOnly`
   * (treasury:status): the same answer, and nothing written: no transfer ingested, none cleared.
   */
  async assess(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    gasPrice: bigint,
    now: Date,
    readOnly = false,
  ): Promise<TokenAssessment> {
    const token = network.tokens[currency]!;
    const pending = await this.planner.candidates(
      network.name,
      currency,
      {
        family: 'EVM',
        fingerprint: this.keys.fingerprint('EVM'),
        limit: CANDIDATES_PER_TICK,
        now,
        backoffSeconds: settings.retryBackoffSeconds,
      },
      readOnly,
    );
    const assessment: TokenAssessment = { candidates: pending.length, emptied: 0, funded: [] };
    if (!pending.length) return assessment;
    const chain = this.chainFor(network.name);
    // Read as deep as deposits are confirmed: a zero there is a proof no sibling block undoes.
    const block = provenBlock(await chain.headBlock(), network.confirmations);
    assessment.block = block;
    // A balance read at a block older than a known transfer proves nothing about it: that
    // address waits alone.
    const readable = readableAt(pending, block);
    if (!readable.length) return assessment;
    const balances = await chain.tokenBalances(
      token.contract,
      readable.map((candidate) => candidate.address),
      block,
    );
    const empty = readable.filter((candidate) => balances.get(candidate.address) === 0n);
    if (!readOnly) {
      await this.planner.markEmpty(
        network.name,
        currency,
        empty.map((candidate) => candidate.address),
        block,
      );
    }
    assessment.emptied = empty.length;
    const funded = readable.filter((candidate) => (balances.get(candidate.address) ?? 0n) > 0n);
    if (!funded.length) return assessment;
    const codes = await chain.codes(funded.map((candidate) => candidate.address));
    assessment.funded = funded.map((candidate) =>
      assessFundedAddress(
        candidate,
        balances.get(candidate.address)!,
        codes.get(candidate.address)!,
        token.decimals,
        settings,
        gasPrice,
        now,
      ),
    );
    return assessment;
  }

  private async signBatch(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    batch: AssessedAddress[],
  ): Promise<string | null> {
    const token = network.tokens[currency]!;
    const sweeper = this.keys.sweeperFor(network.name)!;
    const transport = this.transports.transportFor(network.name) as EvmPayoutTransport;
    const chain = this.chainFor(network.name);
    const destination = await this.destination(network, settings, currency, token.decimals);
    const destinationAddress =
      destination === 'treasury'
        ? settings.treasuryAddress!
        : await this.hotWalletAddress(network.name);
    if (!destinationAddress) return null;
    // Everything the node must tell is read before the transaction that journals the sweep.
    const needing = batch.filter((item) => item.needsAuthorization);
    const authorityNonces = await chain.nonces(needing.map((item) => item.address));
    const fees = cappedSweepFees(await transport.suggestFees(), settings);
    const nodeCount = await transport.transactionCount(sweeper.address, 'pending');
    const authorizationList: Authorization[] = needing.map((item) =>
      signSweepAuthorization(
        this.keys.depositPrivateKey('EVM', item.derivationIndex),
        {
          delegate: settings.sweepDelegate!,
          chainId: network.chainId,
          nonce: authorityNonces.get(item.address)!,
        },
        settings.sweepDelegate!,
      ),
    );
    const calldata = encodeSweepMany(
      batch.map((item) => item.address),
      token.contract,
      destination === 'treasury',
    );
    const gasLimit = GAS_LIMIT_BASE + GAS_LIMIT_PER_ADDRESS * BigInt(batch.length);
    const sweepId = newId('sw');
    const attempt = await this.dataSource.transaction(async (manager) => {
      const nonce = await this.journal.lockNextNonce(
        manager,
        network.name,
        sweeper.address,
        nodeCount,
      );
      if (nonce === null) return null;
      const signed = signSweepBatch(sweeper.privateKey(), {
        chainId: network.chainId,
        delegate: settings.sweepDelegate!,
        calldata,
        nonce,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        gasLimit,
        authorizationList,
      });
      const journaled = {
        txHash: signed.txHash,
        rawTransaction: signed.rawTransaction,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        gasLimit,
      };
      await this.journal.insert(
        manager,
        {
          id: sweepId,
          kind: 'batch',
          delegate: settings.sweepDelegate!,
          network: network.name,
          currency,
          tokenContract: token.contract,
          tokenDecimals: token.decimals,
          destination,
          destinationAddress,
          sweeperAddress: sweeper.address,
          items: batch.map((item) => ({
            address: item.address,
            derivationIndex: item.derivationIndex,
            expectedAmount: formatUnits(item.balanceBaseUnits, token.decimals),
            authorized: item.needsAuthorization,
          })),
        },
        nonce,
        journaled,
      );
      return (await this.journal.attempts(sweepId, manager))[0];
    });
    if (!attempt) {
      this.logger.warn({ network: network.name }, 'Sweeper not registered: no sweep signed');
      return null;
    }
    await this.broadcaster.broadcast(network.name, attempt);
    return sweepId;
  }

  private async destination(
    network: NetworkConfig,
    settings: NetworkTreasurySettings,
    currency: Currency,
    decimals: number,
  ): Promise<SweepDestination> {
    const target = settings.hotWalletTarget[currency];
    if (!settings.treasuryAddress || target === undefined) return 'hot_wallet';
    const hotWallet = await this.hotWalletAddress(network.name);
    if (!hotWallet) return 'treasury';
    const token = network.tokens[currency]!;
    const balances = await this.chainFor(network.name).tokenBalances(token.contract, [hotWallet]);
    const held = balances.get(hotWallet) ?? 0n;
    const inbound = new Decimal(await this.journal.inboundToHotWallet(network.name, currency));
    const level = new Decimal(formatUnits(held, decimals)).plus(inbound);
    return destinationFor(level, target, true);
  }

  /**
   * Before a network's first sweep in this process: the sweeper key is not the hot wallet's (the
   * lanes would share nonces), and the delegate's immutables are this configuration's sweeper,
   * hot wallet, treasury and tokens. A deposit key authorizes whatever delegate the settings name,
   * so a wrong one would hand the deposit addresses to someone else.
   */
  async refusal(name: NetworkName): Promise<string | null> {
    const network = this.networks.get(name);
    const settings = this.keys.settings.get(name);
    const sweeper = this.keys.sweeperFor(name);
    if (!settings?.sweepDelegate || !sweeper) return null; // nothing to sign with
    const delegate = settings.sweepDelegate;
    const known = this.checked.get(network.name);
    if (known?.delegate === delegate && known.refusal === null) return null;
    const hotWallet = await this.hotWalletAddress(network.name);
    let refusal = sweeperIsHotWallet('EVM', sweeper.address, hotWallet);
    if (!refusal) {
      const reasons = delegateMismatches(
        await this.chainFor(network.name).delegateImmutables(delegate),
        {
          sweeper: sweeper.address,
          hotWallet,
          treasury: settings.treasuryAddress,
          tokens: Object.values(network.tokens).map((token) => token!.contract),
        },
      );
      if (reasons.length)
        refusal = `the sweep delegate ${delegate} does not match: ${reasons.join('; ')}`;
    }
    if (refusal && known?.refusal !== refusal) {
      this.logger.error({ network: network.name, refusal }, 'Sweeping refused');
    }
    this.checked.set(network.name, { delegate, refusal });
    return refusal;
  }

  private async hotWalletAddress(network: NetworkName): Promise<string | null> {
    const rows: Array<{ address: string }> = await this.dataSource.query(
      `SELECT address FROM hot_wallets WHERE network = $1`,
      [network],
    );
    return rows[0]?.address ?? null;
  }
}
