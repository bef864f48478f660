import { Inject, Injectable } from '@nestjs/common';
import { parseUnits } from 'ethers';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig, formatAmount } from '@app/common';
import {
  ChainError,
  EvmFees,
  EvmPayoutTransport,
  HotWalletKey,
  NetworkName,
  PayoutTransports,
  SignedTransfer,
  TokenTransferOrder,
  TronPayoutTransport,
} from '@app/chains';
import { PayoutRecord } from '../payout.types';
import { PayoutAttempt, PayoutJournalRepository } from './payout-journal.repository';
import { PayoutNoncesRepository } from './payout-nonces.repository';

/** Cap of maxFeePerGas per network in gwei: a replacement never bids above it. PAYOUT_MAX_FEE_GWEI overrides. */
export const DEFAULT_MAX_FEE_GWEI: Record<Exclude<NetworkName, 'TRON'>, string> = {
  ETHEREUM: '300',
  BSC: '20',
  POLYGON: '3000',
  ARBITRUM: '10',
  BASE: '10',
  OPTIMISM: '10',
};

// Shorter than any supported network's block time (Arbitrum's 0.25 s aside: a bid a second old
// is still good there, and replacements ask the node afresh).
export const FEE_CACHE_MS = 1_000;

// geth takes a replacement at +10 %, other clients want more: +12.5 % on both fee fields.
const BUMP_NUMERATOR = 1125n;
const BUMP_DENOMINATOR = 1000n;

/** What an EVM signature needs that only the node can tell, read before any transaction opens. */
export interface EvmSigningInput {
  fees: EvmFees;
  gasLimit: bigint;
  /** The wallet's transaction count as the node sees it (pending included). */
  nodeNonce: number;
}

export function transferOrder(payout: PayoutRecord): TokenTransferOrder {
  return {
    tokenContract: payout.token_contract,
    to: payout.to_address,
    amountBaseUnits: toBaseUnits(payout.net_amount, payout.token_decimals),
  };
}

export function toBaseUnits(amount: string, decimals: number): bigint {
  return parseUnits(formatAmount(amount), decimals);
}

function bump(value: bigint): bigint {
  return (value * BUMP_NUMERATOR + BUMP_DENOMINATOR - 1n) / BUMP_DENOMINATOR;
}

const larger = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** The least a replacement of `previous` may bid: +12.5 % on both fields, and today's suggestion. */
export function minimumReplacementFees(previous: EvmFees, suggested: EvmFees): EvmFees {
  return {
    maxFeePerGas: larger(bump(previous.maxFeePerGas), suggested.maxFeePerGas),
    maxPriorityFeePerGas: larger(
      bump(previous.maxPriorityFeePerGas),
      suggested.maxPriorityFeePerGas,
    ),
  };
}

/**
 * Signs payout transactions and journals them in the caller's transaction, before any broadcast.
 * EVM nonces come from the hot_wallets row, locked for the signature: one signer per wallet.
 */
@Injectable()
export class PayoutSigner {
  private readonly feeCache = new Map<string, { at: number; fees: Promise<EvmFees> }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly journal: PayoutJournalRepository,
    private readonly nonces: PayoutNoncesRepository,
    private readonly transports: PayoutTransports,
  ) {}

  maxFeePerGas(network: NetworkName): bigint {
    const gwei =
      this.config.payouts.maxFeeGwei[network] ??
      DEFAULT_MAX_FEE_GWEI[network as Exclude<NetworkName, 'TRON'>] ??
      '1000';
    return parseUnits(gwei, 'gwei');
  }

  /** The node's fee suggestion, capped per network. */
  cappedFees(network: NetworkName, suggested: EvmFees): EvmFees {
    const cap = this.maxFeePerGas(network);
    const maxFeePerGas = suggested.maxFeePerGas < cap ? suggested.maxFeePerGas : cap;
    const maxPriorityFeePerGas =
      suggested.maxPriorityFeePerGas < maxFeePerGas ? suggested.maxPriorityFeePerGas : maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  /**
   * Fees for replacing `previous`: at least +12.5 % on both fields and at least today's
   * suggestion, or null when the cap leaves no room for a valid replacement.
   */
  replacementFees(
    network: NetworkName,
    previous: EvmFees,
    suggested: EvmFees,
    cap: bigint = this.maxFeePerGas(network),
  ): EvmFees | null {
    const { maxFeePerGas, maxPriorityFeePerGas } = minimumReplacementFees(previous, suggested);
    if (maxFeePerGas > cap || maxPriorityFeePerGas > maxFeePerGas) return null;
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  async evmInput(payout: PayoutRecord, key: HotWalletKey): Promise<EvmSigningInput> {
    const transport = this.evm(payout.network);
    const [suggested, gasLimit, nodeNonce] = await Promise.all([
      this.currentFees(payout.network, transport),
      transport.estimateTransferGas(key.address, transferOrder(payout)),
      transport.transactionCount(key.address, 'pending'),
    ]);
    return { fees: this.cappedFees(payout.network as NetworkName, suggested), gasLimit, nodeNonce };
  }

  /**
   * `evmInput` for a claim of several payouts: the fee suggestion and the node's nonce read once,
   * the gas estimated per payout (its recipient's state decides), all at once. A payout whose
   * estimate fails gets its error instead (it waits; the others are signed).
   */
  async evmInputs(
    payouts: PayoutRecord[],
    key: HotWalletKey,
  ): Promise<Array<EvmSigningInput | ChainError>> {
    if (!payouts.length) return [];
    const network = payouts[0].network;
    const transport = this.evm(network);
    const [suggested, nodeNonce, gasLimits] = await Promise.all([
      this.currentFees(network, transport),
      transport.transactionCount(key.address, 'pending'),
      Promise.allSettled(
        payouts.map((payout) => transport.estimateTransferGas(key.address, transferOrder(payout))),
      ),
    ]);
    const fees = this.cappedFees(network as NetworkName, suggested);
    return gasLimits.map((estimate) => {
      if (estimate.status === 'fulfilled') return { fees, gasLimit: estimate.value, nodeNonce };
      if (estimate.reason instanceof ChainError) return estimate.reason;
      throw estimate.reason;
    });
  }

  /**
   * The node's fee suggestion, shared by the sends of one moment: it changes once a block, and a
   * burst of payouts would otherwise ask for it once each.
   */
  private currentFees(network: string, transport: EvmPayoutTransport): Promise<EvmFees> {
    const cached = this.feeCache.get(network);
    if (cached && Date.now() - cached.at < FEE_CACHE_MS) return cached.fees;
    const fees = transport.suggestFees();
    this.feeCache.set(network, { at: Date.now(), fees });
    // A failed read must not be served to the next sends.
    fees.catch(() => this.feeCache.delete(network));
    return fees;
  }

  /** TRON: built on the node (reference block) and signed locally; stored by `journalTron`. */
  async buildTron(payout: PayoutRecord, key: HotWalletKey): Promise<SignedTransfer> {
    const transport = this.transports.transportFor(payout.network as NetworkName);
    if (transport.family !== 'TRON') throw new Error(`${payout.network} is not TRON.`);
    return (transport as TronPayoutTransport).buildAndSign(
      key,
      transferOrder(payout),
      BigInt(this.config.payouts.tronFeeLimitSun),
    );
  }

  /** A new EVM nonce for this payout, signed and stored. The payout row must be locked. */
  async journalEvmWithNewNonce(
    manager: EntityManager,
    payout: PayoutRecord,
    key: HotWalletKey,
    input: EvmSigningInput,
  ): Promise<PayoutAttempt> {
    const stored = await this.nonces.lockWalletNonce(manager, payout.network, key.address);
    // The database is the authority; the node only raises it (transactions sent from elsewhere).
    const nonce = await this.nonces.assignNonce(
      manager,
      payout.network,
      key.address,
      Math.max(stored ?? 0, input.nodeNonce),
      payout.id,
    );
    const signed = this.evm(payout.network).sign(key, transferOrder(payout), {
      nonce,
      fees: input.fees,
      gasLimit: input.gasLimit,
    });
    return this.journal.insertAttempt(manager, payout, key.address, signed);
  }

  /**
   * First signatures of several Pending payouts of one network (rows locked by the caller, the
   * wallet row too): consecutive nonces from max(stored next nonce, node's count), each payout
   * signed and all stored with their nonces in this transaction, before any broadcast. Signing
   * is local (a cached key, no I/O), so the wallet lock is held for the statements and the CPU.
   */
  async journalEvmFirstSignatures(
    manager: EntityManager,
    claims: Array<{ payout: PayoutRecord; input: EvmSigningInput }>,
    key: HotWalletKey,
  ): Promise<PayoutAttempt[]> {
    const network = claims[0].payout.network;
    const stored = await this.nonces.lockWalletNonce(manager, network, key.address);
    const nodeNonce = Math.max(...claims.map((claim) => claim.input.nodeNonce));
    // The database is the authority; the node only raises it (transactions sent from elsewhere).
    const nonces = await this.nonces.assignNonces(
      manager,
      network,
      key.address,
      Math.max(stored ?? 0, nodeNonce),
      claims.map((claim) => claim.payout.id),
    );
    const transport = this.evm(network);
    const signed = claims.map((claim, index) =>
      transport.sign(key, transferOrder(claim.payout), {
        nonce: nonces[index],
        fees: claim.input.fees,
        gasLimit: claim.input.gasLimit,
      }),
    );
    return this.journal.insertFirstAttempts(
      manager,
      claims.map((claim) => claim.payout),
      key.address,
      signed,
    );
  }

  /** Same nonce, higher fees: whichever of the payout's attempts is mined completes it. */
  async journalEvmReplacement(
    manager: EntityManager,
    payout: PayoutRecord,
    key: HotWalletKey,
    previous: PayoutAttempt,
    fees: EvmFees,
    gasLimit: bigint,
  ): Promise<PayoutAttempt> {
    const signed = this.evm(payout.network).sign(key, transferOrder(payout), {
      nonce: Number(previous.nonce),
      fees,
      gasLimit,
    });
    return this.journal.insertAttempt(manager, payout, key.address, signed);
  }

  /**
   * A zero-value send to the wallet itself with the nonce of `payout`'s transfers, stored as an
   * attempt of the payout with purpose 'cancel'. The payout row must be locked.
   */
  async journalEvmCancel(
    manager: EntityManager,
    payout: PayoutRecord,
    key: HotWalletKey,
    nonce: number,
    fees: EvmFees,
  ): Promise<PayoutAttempt> {
    const signed = this.evm(payout.network).signCancel(key, { nonce, fees });
    return this.journal.insertAttempt(manager, payout, key.address, signed, 'cancel');
  }

  async journalTron(
    manager: EntityManager,
    payout: PayoutRecord,
    key: HotWalletKey,
    signed: SignedTransfer,
  ): Promise<PayoutAttempt> {
    return this.journal.insertAttempt(manager, payout, key.address, signed);
  }

  evm(network: string): EvmPayoutTransport {
    const transport = this.transports.transportFor(network as NetworkName);
    if (transport.family !== 'EVM') throw new Error(`${network} is not an EVM network.`);
    return transport;
  }
}
