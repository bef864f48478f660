import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import {
  ChainError,
  HotWalletKey,
  NetworkName,
  PayoutTransports,
  SignedTransfer,
} from '@app/chains';
import { PendingReason, PayoutRecord } from '../payout.types';
import { HotWallets } from './hot-wallets';
import { PayoutBroadcaster } from './payout-broadcaster';
import { CoverageReadPoint, PayoutCoverageRepository } from './payout-coverage.repository';
import { PayoutAttempt, PayoutJournalRepository } from './payout-journal.repository';
import { PayoutNoncesRepository, UnregisteredHotWalletError } from './payout-nonces.repository';
import { PayoutOutcomes, shortfallMessage } from './payout-outcomes';
import { EvmSigningInput, PayoutSigner, toBaseUnits, transferOrder } from './payout-signer';
import { newSandboxClaim, refundIdOf, SandboxFunding } from './sandbox-funding';

/** Payouts of one network and token claimed together: one wallet lock, consecutive nonces. */
export const CLAIM_BATCH_SIZE = 50;
// Longer than a claim's chain reads and transaction take on a slow node; a worker that dies
// leaves payouts that are due again after this (the reconciler sends them).
const CLAIM_LEASE_MS = 10_000;

/** One leased payout past the wallet's checks, with what its signature needs. */
interface Candidate {
  payout: PayoutRecord;
  /** Native coin its transaction may burn: EVM gas limit x max fee, TRON the fee limit. */
  gasNeeded: bigint;
  evmInput?: EvmSigningInput;
  tronSigned?: SignedTransfer;
}

/** 'simulated': a sandbox payout that simulated money funds, parked (or a refund's, completed). */
export type SendOutcome = 'sent' | 'skipped' | 'postponed' | 'failed' | 'simulated';

/**
 * The first send of a payout: check the hot wallet can cover it, claim the payout and journal a
 * signed transaction in one database transaction, then broadcast. A crash at any line leaves
 * either a Pending payout (the reconciler sends it again) or a stored attempt (the tracker
 * re-broadcasts the same bytes); it never leaves a transaction on the wire that is not stored.
 * In the sandbox a payout that simulated money funds is never signed (SandboxFunding).
 */
@Injectable()
export class PayoutSender {
  private readonly logger = new Logger(PayoutSender.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly journal: PayoutJournalRepository,
    private readonly coverage: PayoutCoverageRepository,
    private readonly nonces: PayoutNoncesRepository,
    private readonly wallets: HotWallets,
    private readonly signer: PayoutSigner,
    private readonly transports: PayoutTransports,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly outcomes: PayoutOutcomes,
    private readonly sandboxFunding: SandboxFunding,
  ) {}

  async send(payoutId: string): Promise<SendOutcome> {
    const payout = await this.journal.findSendable(payoutId);
    if (!payout) return 'skipped';
    const sandbox = this.sandboxFunding.applies();
    const key = this.wallets.get(payout.network as NetworkName);
    if (!key) {
      // First: a payout that simulated money funds waits for a test helper even where no hot
      // wallet is configured.
      if (sandbox) {
        const early = await this.dataSource.transaction(async (manager) => {
          const locked = await this.journal.lockSendable(manager, payout.id);
          return locked ? this.sandboxFunding.decide(manager, locked) : null;
        });
        if (!early) return 'skipped';
        if (early !== 'on_chain') return 'simulated';
      }
      return this.waitOrFail(payout, 'hot_wallet_not_configured');
    }
    // The claim takes the other due payouts of the token along (a refund's payout goes alone).
    const leased = await this.journal.leaseSendable(payout, CLAIM_BATCH_SIZE, CLAIM_LEASE_MS);
    if (!leased.length) return 'skipped';
    const outcomes = await this.sendLeased(leased, key, sandbox);
    return outcomes.get(payout.id) ?? 'skipped';
  }

  /**
   * Claims leased payouts of one network and token together: one read of the wallet, one
   * transaction under the wallet's lock for all of them (coverage, nonces, signatures, journal),
   * then the broadcasts. Every leased payout ends claimed, postponed, failed or due again.
   */
  private async sendLeased(
    leased: PayoutRecord[],
    key: HotWalletKey,
    sandbox: boolean,
  ): Promise<Map<string, SendOutcome>> {
    const outcomes = new Map<string, SendOutcome>();
    let claimed: PayoutAttempt[];
    try {
      claimed = await this.claim(leased, key, sandbox, outcomes);
    } catch (error) {
      const open = leased.filter((payout) => !outcomes.has(payout.id));
      if (error instanceof UnregisteredHotWalletError) {
        // Another worker registered another key for this network: it sends, this one must not.
        this.logger.error(
          {
            payoutIds: open.map((payout) => payout.id),
            network: error.network,
            address: error.address,
          },
          "This worker's hot wallet key is not the registered one; it leaves the payout to the worker that registered it",
        );
        await this.journal.endLease(open.map((payout) => payout.id));
        return outcomes;
      }
      if (!(error instanceof ChainError)) {
        // Due again now rather than when the lease runs out: the job's retry or the reconciler.
        await this.journal.endLease(open.map((payout) => payout.id));
        throw error;
      }
      for (const payout of open) {
        this.logger.warn(
          { payoutId: payout.id, reason: error.message },
          'Network unavailable; payout waits',
        );
        await this.journal.postpone(payout.id, 'network_unavailable', this.retryDelayMs());
        outcomes.set(payout.id, 'postponed');
      }
      return outcomes;
    }
    // Leased, then finished or taken meanwhile (rejected, sent by an earlier claim): not ours.
    const untouched = leased.filter((payout) => !outcomes.has(payout.id));
    for (const payout of untouched) outcomes.set(payout.id, 'skipped');
    await this.journal.endLease(untouched.map((payout) => payout.id));
    // In nonce order: a node queues a later nonce until the earlier ones arrive, but one answer
    // per request keeps each answer recorded on its own attempt.
    for (const attempt of claimed) await this.broadcaster.broadcast(attempt);
    return outcomes;
  }

  /**
   * Everything before the broadcast. Sets the outcome of every payout it decides; returns the
   * attempts stored (in nonce order), none yet broadcast.
   */
  private async claim(
    claimable: PayoutRecord[],
    key: HotWalletKey,
    sandbox: boolean,
    outcomes: Map<string, SendOutcome>,
  ): Promise<PayoutAttempt[]> {
    let leased = claimable;
    if (sandbox) {
      // First, before any chain read or hot wallet check: a payout that simulated money funds
      // waits for a test helper (a wallet shortfall must not fail it). Each judged on its own
      // here; the claim's transaction decides again, counting the claim's earlier payouts.
      leased = await this.parkSimulated(leased, outcomes);
      if (!leased.length) return [];
    }
    // Chain reads first, outside any transaction: a slow node never holds a lock.
    const wallet = await this.walletState(leased[0], key.address);
    const covered: PayoutRecord[] = [];
    for (const payout of leased) {
      if (wallet.token < transferOrder(payout).amountBaseUnits) {
        outcomes.set(payout.id, await this.waitOrFail(payout, 'hot_wallet_insufficient_token'));
      } else {
        covered.push(payout);
      }
    }
    const candidates: Candidate[] = [];
    if (leased[0].chain_family === 'EVM') {
      const inputs = await this.signer.evmInputs(covered, key);
      for (const [index, payout] of covered.entries()) {
        const input = inputs[index];
        if (input instanceof ChainError) {
          // This payout's estimate failed (its recipient, its amount): it alone waits.
          this.logger.warn(
            { payoutId: payout.id, reason: input.message },
            'Network unavailable; payout waits',
          );
          await this.journal.postpone(payout.id, 'network_unavailable', this.retryDelayMs());
          outcomes.set(payout.id, 'postponed');
          continue;
        }
        candidates.push({
          payout,
          gasNeeded: input.gasLimit * input.fees.maxFeePerGas,
          evmInput: input,
        });
      }
    } else {
      const gasNeeded = BigInt(this.config.payouts.tronFeeLimitSun);
      for (const payout of covered) {
        if (wallet.native >= gasNeeded) {
          candidates.push({
            payout,
            gasNeeded,
            tronSigned: await this.signer.buildTron(payout, key),
          });
        }
      }
    }
    const ready: Candidate[] = [];
    for (const candidate of candidates) {
      if (wallet.native < candidate.gasNeeded) {
        const { payout } = candidate;
        outcomes.set(payout.id, await this.waitOrFail(payout, 'hot_wallet_insufficient_gas'));
      } else {
        ready.push(candidate);
      }
    }
    for (const payout of covered) {
      if (!outcomes.has(payout.id) && !ready.some((c) => c.payout.id === payout.id)) {
        outcomes.set(payout.id, await this.waitOrFail(payout, 'hot_wallet_insufficient_gas'));
      }
    }
    if (!ready.length) return [];
    const shortOf = new Map<string, 'token' | 'gas'>();
    // Parked (or a refund's completed) in the transaction below: outcomes only once it commits.
    // One that rolls back parked nothing, and its payouts must be due again (review r6, L2).
    let simulatedInTransaction: string[] = [];
    const attempts = await this.dataSource.transaction(async (manager) => {
      simulatedInTransaction = [];
      const locked = new Map(
        (
          await this.journal.lockSendableMany(
            manager,
            ready.map((c) => c.payout.id),
          )
        ).map((payout) => [payout.id, payout]),
      );
      const rows = ready.flatMap((candidate) => {
        const row = locked.get(candidate.payout.id);
        return row ? [{ ...candidate, locked: row }] : [];
      });
      // A refund's payout is claimed alone (leaseSendable) and decided as it always was; the
      // others' balances are locked here, each once, and decided one by one below.
      const alone = rows.some((row) => refundIdOf(row.locked) !== null);
      if (alone && rows.length > 1) throw new Error("A refund's payout is claimed alone.");
      const onChain: typeof rows = [];
      for (const row of rows) {
        // The decision that counts: under the balance's lock (to this transaction's end), so it
        // sees every earlier claim of the balance as Processing. Before the wallet's lock, so a
        // claim waiting for a balance never holds up the network's other claims.
        if (
          sandbox &&
          alone &&
          (await this.sandboxFunding.decide(manager, row.locked)) !== 'on_chain'
        ) {
          simulatedInTransaction.push(row.locked.id);
          continue;
        }
        onChain.push(row);
      }
      if (sandbox && !alone) {
        await this.sandboxFunding.lockBalances(
          manager,
          onChain.map((row) => row.locked),
        );
      }
      if (!onChain.length) return [];
      // The wallet's row lock serializes claims, so what is committed below counts every
      // earlier one: a burst can never promise the same tokens twice.
      const first = onChain[0].locked;
      await this.nonces.lockWalletNonce(manager, first.network, key.address);
      const committed = await this.coverage.committedNetAmount(
        manager,
        first.network,
        key.address,
        first.token_contract,
        wallet.since,
      );
      const fees = await this.coverage.committedFees(
        manager,
        first.network,
        key.address,
        wallet.since,
        this.config.payouts.tronFeeLimitSun,
      );
      let tokenLeft = wallet.token - toBaseUnits(committed, first.token_decimals);
      let nativeLeft = wallet.native - fees;
      const taken: typeof rows = [];
      const sandboxClaim = newSandboxClaim();
      // Oldest first, as leased: what the wallet cannot cover all at once goes to the newest.
      for (const candidate of onChain) {
        if (
          sandbox &&
          !alone &&
          (await this.sandboxFunding.decideInClaim(manager, candidate.locked, sandboxClaim)) !==
            'on_chain'
        ) {
          simulatedInTransaction.push(candidate.locked.id);
          continue;
        }
        const amount = transferOrder(candidate.locked).amountBaseUnits;
        if (tokenLeft < amount) shortOf.set(candidate.locked.id, 'token');
        else if (nativeLeft < candidate.gasNeeded) shortOf.set(candidate.locked.id, 'gas');
        else {
          taken.push(candidate);
          tokenLeft -= amount;
          nativeLeft -= candidate.gasNeeded;
          if (sandbox) this.sandboxFunding.claimSigns(sandboxClaim, candidate.locked);
        }
      }
      if (!taken.length) return [];
      if (taken[0].evmInput) {
        return this.signer.journalEvmFirstSignatures(
          manager,
          taken.map((candidate) => ({ payout: candidate.locked, input: candidate.evmInput! })),
          key,
        );
      }
      return this.journal.insertFirstAttempts(
        manager,
        taken.map((candidate) => candidate.locked),
        key.address,
        taken.map((candidate) => candidate.tronSigned!),
      );
    });
    for (const id of simulatedInTransaction) outcomes.set(id, 'simulated');
    for (const attempt of attempts) outcomes.set(attempt.payout_id, 'sent');
    // Short only because of payouts on their way out: they may still settle (or revert), so the
    // payout waits whatever the shortfall setting says.
    for (const candidate of ready) {
      const short = shortOf.get(candidate.payout.id);
      if (!short) continue;
      const reason =
        short === 'token' ? 'hot_wallet_insufficient_token' : 'hot_wallet_insufficient_gas';
      outcomes.set(candidate.payout.id, await this.postpone(candidate.payout, reason));
    }
    return attempts;
  }

  /**
   * The sandbox's first look (SandboxFunding.keepOnChain, one transaction): the leased payouts
   * that may go on chain; the others parked (or a refund's completed) get their outcome.
   */
  private async parkSimulated(
    leased: PayoutRecord[],
    outcomes: Map<string, SendOutcome>,
  ): Promise<PayoutRecord[]> {
    const decided = await this.dataSource.transaction((manager) =>
      this.sandboxFunding.keepOnChain(manager, leased),
    );
    const kept = new Set(decided.kept.map((payout) => payout.id));
    // Locked and not kept: parked (or a refund's completed) in that transaction.
    for (const payout of decided.locked) {
      if (!kept.has(payout.id)) outcomes.set(payout.id, 'simulated');
    }
    return leased.filter((payout) => kept.has(payout.id));
  }

  /**
   * EVM: balances and mined count at one block. TRON: balances now (no nonces to count from),
   * with the database's clock just before: the claim's lock may come long after (up to 50
   * transactions built in between), and a payout finished meanwhile took tokens this read still
   * shows (review r6, M2).
   */
  private async walletState(
    payout: PayoutRecord,
    address: string,
  ): Promise<{ token: bigint; native: bigint; since: CoverageReadPoint }> {
    const transport = this.transports.transportFor(payout.network as NetworkName);
    if (transport.family === 'EVM') {
      const state = await transport.walletStateAtBlock(address, payout.token_contract);
      return { token: state.token, native: state.native, since: { fromNonce: state.minedCount } };
    }
    const readAt = await this.coverage.coverageClock();
    const balances = await transport.balances(address, payout.token_contract);
    return { ...balances, since: { fromNonce: null, readAt } };
  }

  private async waitOrFail(payout: PayoutRecord, reason: PendingReason): Promise<SendOutcome> {
    if (this.config.payouts.hotWalletShortfall === 'fail' && reason !== 'network_unavailable') {
      const failed = await this.outcomes.failPending(payout.id, shortfallMessage(reason));
      return failed ? 'failed' : 'skipped';
    }
    return this.postpone(payout, reason);
  }

  private async postpone(payout: PayoutRecord, reason: PendingReason): Promise<SendOutcome> {
    if (payout.pending_reason !== reason) {
      this.logger.warn({ payoutId: payout.id, reason }, 'Payout waits for the hot wallet');
    }
    await this.journal.postpone(payout.id, reason, this.retryDelayMs());
    return 'postponed';
  }

  private retryDelayMs(): number {
    return this.config.payouts.retryDelayMs;
  }
}
