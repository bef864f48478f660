import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { EntityManager } from 'typeorm';
import { ChainFamily, NetworkName, NetworkRegistry, TokenTransfer } from '@app/chains';
import { APP_CONFIG, AppConfig } from '@app/common';
import { UnmatchedReason, UnmatchedTransfer } from './unmatched-transfers/unmatched-transfer';
import { DetectedTransfer } from './detected-transfers.repository';
import { WatchedToken } from './token-index';

export interface MatchedTransfers {
  /** Transfers a session takes: its own token, on its own network, to its pay address. */
  detected: DetectedTransfer[];
  /** Transfers of a watched token to one of our addresses that no session may take. */
  unmatched: UnmatchedTransfer[];
}

/** The session that owns a pay address, on whichever network of the family it was created. */
export interface AddressSession {
  id: string;
  network: string;
  pay_address: string;
  currency_contract: string;
  merchant_id: string;
  sub_merchant_id: string | null;
  livemode: boolean;
  /** Paid, with a confirmed transfer still standing (a reorg in this tick may have taken it). */
  paid: boolean;
  /** Has a refund that is not Failed or Canceled: it takes no further payment. */
  refunded: boolean;
}

/** A transfer already recorded on this network, as a session's or as unmatched. */
export type KnownTransfer =
  | { kind: 'session'; session_id: string }
  | {
      kind: 'unmatched';
      reason: UnmatchedReason;
      session_id: string | null;
      merchant_id: string | null;
      sub_merchant_id: string | null;
      livemode: boolean;
    };

export interface ClassifyInput {
  network: NetworkName;
  tokens: Map<string, WatchedToken>;
  found: TokenTransfer[];
  /** Sessions by receiver key (see receiverKey), across every network of the chain family. */
  sessions: Map<string, AddressSession>;
  /** Receiver keys of our pool's addresses that no session has. */
  poolAddresses: Set<string>;
  /** Already recorded transfers by `transferKey`. */
  known: Map<string, KnownTransfer>;
  /** The deployment's environment: the livemode of transfers no session owns. */
  livemode: boolean;
}

/** The receiving address as sessions and the pool are looked up by (see TokenTransfer.toKey). */
export function receiverKey(transfer: TokenTransfer): string {
  return transfer.toKey ?? transfer.to;
}

export function transferKey(transfer: { txHash: string; logIndex: number }): string {
  return `${transfer.txHash}:${transfer.logIndex}`;
}

/**
 * Sorts found transfers without touching the database. A transfer keeps the side it was first
 * recorded on: a session's own stays the session's (the trailing rescan finds it again once the
 * session is Paid, and must not call it a second payment), an unmatched one stays unmatched (a
 * later change of the session never credits it silently). Zero-value transfers (address
 * poisoning) and transfers to addresses that are not ours are dropped.
 */
export function classifyTransfers(input: ClassifyInput): MatchedTransfers {
  const detected: DetectedTransfer[] = [];
  const unmatched: UnmatchedTransfer[] = [];
  for (const transfer of input.found) {
    const token = input.tokens.get(transfer.tokenContract);
    if (!token || transfer.amountBaseUnits <= 0n) continue;
    const receiver = receiverKey(transfer);
    const session = input.sessions.get(receiver);
    const known = input.known.get(transferKey(transfer));
    if (!known && !session && !input.poolAddresses.has(receiver)) continue;
    const facts = {
      network: input.network,
      currency: token.currency,
      tokenContract: transfer.tokenContract,
      fromAddress: transfer.from,
      // The session's own spelling of the same address: no checksum to compute.
      toAddress: session?.pay_address ?? transfer.to,
      txHash: transfer.txHash,
      logIndex: transfer.logIndex,
      amount: toTokenAmount(transfer.amountBaseUnits, token.decimals),
      amountBaseUnits: transfer.amountBaseUnits.toString(),
      blockNumber: transfer.blockNumber,
      blockHash: transfer.blockHash,
    };
    if (known?.kind === 'session') {
      detected.push({ ...facts, sessionId: known.session_id });
    } else if (known?.kind === 'unmatched') {
      unmatched.push({
        ...facts,
        reason: known.reason,
        sessionId: known.session_id,
        merchantId: known.merchant_id,
        subMerchantId: known.sub_merchant_id,
        livemode: known.livemode,
      });
    } else if (session) {
      const reason = mismatchOf(session, input.network, transfer.tokenContract);
      if (!reason) {
        detected.push({ ...facts, sessionId: session.id });
      } else {
        unmatched.push({
          ...facts,
          reason,
          sessionId: session.id,
          merchantId: session.merchant_id,
          subMerchantId: session.sub_merchant_id,
          livemode: session.livemode,
        });
      }
    } else {
      unmatched.push({
        ...facts,
        reason: 'unknown_address',
        sessionId: null,
        merchantId: null,
        subMerchantId: null,
        livemode: input.livemode,
      });
    }
  }
  return { detected, unmatched };
}

/** Why the session may not take this transfer, or null when it may. */
function mismatchOf(
  session: AddressSession,
  network: string,
  tokenContract: string,
): UnmatchedReason | null {
  if (session.network !== network) return 'wrong_network';
  if (session.currency_contract !== tokenContract) return 'wrong_token';
  if (session.paid) return 'session_already_paid';
  if (session.refunded) return 'session_refunded';
  return null;
}

/** 10^-decimals by decimals: a block's transfers share two or three (pow costs more than times). */
const unitScales = new Map<number, Decimal>();

/** Base units to a decimal string in whole tokens ("10500000", 6 -> "10.5"); never a number. */
export function toTokenAmount(baseUnits: bigint, decimals: number): string {
  let scale = unitScales.get(decimals);
  if (!scale) {
    scale = new Decimal(10).pow(-decimals);
    unitScales.set(decimals, scale);
  }
  return new Decimal(baseUnits.toString()).times(scale).toFixed();
}

/**
 * Sorts the transfers a scan found into those sessions take and those they do not. At most four
 * queries per call, whatever the number of transfers: a lock on this network's sessions among the
 * receivers, the sessions owning the receiving addresses (on any network of the family: EVM
 * addresses are the same on every EVM chain), the pool addresses among the rest, and which of the
 * transfers to our addresses are already recorded.
 */
@Injectable()
export class TransferMatcher {
  constructor(
    private readonly networks: NetworkRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async match(
    manager: EntityManager,
    network: NetworkName,
    tokens: Map<string, WatchedToken>,
    found: TokenTransfer[],
  ): Promise<MatchedTransfers> {
    const relevant = found.filter(
      (transfer) => tokens.has(transfer.tokenContract) && transfer.amountBaseUnits > 0n,
    );
    if (!relevant.length) return { detected: [], unmatched: [] };
    const family = this.networks.get(network).chainFamily;
    // One transfer per receiver: its `to` is read (checksummed) only when nothing else will do.
    const receivers = new Map<string, TokenTransfer>();
    for (const transfer of relevant) {
      const key = receiverKey(transfer);
      if (!receivers.has(key)) receivers.set(key, transfer);
    }
    const sessions = await this.sessionsByReceiver(manager, network, family, [...receivers.keys()]);
    const poolAddresses = await this.poolAddressesWithoutSession(
      manager,
      family,
      [...receivers].filter(([key]) => !sessions.has(key)),
    );
    const ours = relevant.filter((transfer) => {
      const key = receiverKey(transfer);
      return sessions.has(key) || poolAddresses.has(key);
    });
    const known = await this.knownTransfers(manager, network, ours);
    return classifyTransfers({
      network,
      tokens,
      found: relevant,
      sessions,
      poolAddresses,
      known,
      livemode: this.config.livemode,
    });
  }

  /**
   * The sessions of every network of the family, by receiver key (see receiverKey): one indexed
   * query (pay_address is unique). EVM keys are compared in lower case (the lower(pay_address)
   * index), so no found address needs its checksum to be looked up.
   *
   * The sessions of this network (the only ones a transfer here may be credited to) are locked
   * first, in id order as settlement locks them, and `refunded` is read in a later statement: a
   * refund deciding on one of them (it holds the session FOR UPDATE) commits first and is seen
   * (READ COMMITTED: a fresh snapshot per statement), and a refund that comes after waits until
   * this tick has committed its transfers, then sees them confirming. Per session, not per
   * network: a refund never holds up the tick of other sessions (docs/refunds.md, late payments).
   */
  private async sessionsByReceiver(
    manager: EntityManager,
    network: NetworkName,
    family: ChainFamily,
    keys: string[],
  ): Promise<Map<string, AddressSession>> {
    const evm = family === 'EVM';
    const keyOf = new Map(keys.map((key) => [evm ? key.toLowerCase() : key, key]));
    const byAddress = `${evm ? 'lower(s.pay_address)' : 's.pay_address'} = ANY($1::text[])`;
    await manager.query(
      `SELECT s.id FROM checkout_sessions s WHERE ${byAddress} AND s.network = $2
        ORDER BY s.id FOR UPDATE`,
      [[...keyOf.keys()], network],
    );
    const rows: AddressSession[] = await manager.query(
      `SELECT s.id, s.network, s.pay_address, s.currency_contract, s.merchant_id,
              s.sub_merchant_id, s.livemode,
              (s.status = 'Paid' AND EXISTS (
                 SELECT 1 FROM session_transactions t
                  WHERE t.session_id = s.id AND t.status = 'Confirmed')) AS paid,
              EXISTS (SELECT 1 FROM refunds r
                       WHERE r.session_id = s.id AND r.status NOT IN ('Failed', 'Canceled'))
                AS refunded
         FROM checkout_sessions s
        WHERE ${byAddress} AND s.chain_family = $2`,
      [[...keyOf.keys()], family],
    );
    const sessions = new Map<string, AddressSession>();
    for (const row of rows) {
      const key = keyOf.get(evm ? row.pay_address.toLowerCase() : row.pay_address);
      if (key !== undefined) sessions.set(key, row);
    }
    return sessions;
  }

  /**
   * Receiver keys of our pool's addresses (claimed by a failed request, or not yet handed out)
   * among these receivers, looked up by their stored, checksummed form.
   */
  private async poolAddressesWithoutSession(
    manager: EntityManager,
    family: ChainFamily,
    receivers: Array<[string, TokenTransfer]>,
  ): Promise<Set<string>> {
    if (!receivers.length) return new Set();
    const keyOf = new Map(receivers.map(([key, transfer]) => [transfer.to, key]));
    const rows: Array<{ address: string }> = await manager.query(
      `SELECT address FROM pay_addresses WHERE address = ANY($1::text[]) AND chain_family = $2`,
      [[...keyOf.keys()], family],
    );
    return new Set(rows.map((row) => keyOf.get(row.address) as string));
  }

  /** Which transfers are already recorded, as a session's (any status) or as unmatched. */
  private async knownTransfers(
    manager: EntityManager,
    network: NetworkName,
    transfers: TokenTransfer[],
  ): Promise<Map<string, KnownTransfer>> {
    if (!transfers.length) return new Map();
    const rows: Array<KnownTransfer & { tx_hash: string; log_index: number }> = await manager.query(
      `WITH found (tx_hash, log_index) AS (SELECT * FROM unnest($2::text[], $3::int[]))
       SELECT 'session' AS kind, t.tx_hash, t.log_index, t.session_id,
              NULL AS reason, NULL AS merchant_id, NULL AS sub_merchant_id, NULL::boolean AS livemode
         FROM found f
         JOIN session_transactions t
           ON t.network = $1 AND t.tx_hash = f.tx_hash AND t.log_index = f.log_index
       UNION ALL
       SELECT 'unmatched', u.tx_hash, u.log_index, u.session_id,
              u.reason, u.merchant_id, u.sub_merchant_id, u.livemode
         FROM found f
         JOIN unmatched_transfers u
           ON u.network = $1 AND u.tx_hash = f.tx_hash AND u.log_index = f.log_index`,
      [
        network,
        transfers.map((transfer) => transfer.txHash),
        transfers.map((transfer) => transfer.logIndex),
      ],
    );
    const known = new Map<string, KnownTransfer>();
    for (const row of rows) {
      const key = transferKey({ txHash: row.tx_hash, logIndex: row.log_index });
      // A session's own wins: were a transfer ever in both tables, it is credited, not refunded.
      if (row.kind === 'session' || !known.has(key)) known.set(key, row);
    }
    return known;
  }
}
