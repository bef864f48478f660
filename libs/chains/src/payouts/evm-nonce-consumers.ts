import { Signature, toQuantity, verifyAuthorization } from 'ethers';
import { EvmRpc } from '../adapters/evm/evm-rpc';
import { checkedTransactionHash } from '../adapters/evm/evm-transaction-status';
import { NetworkConfig } from '../networks/network.types';
import { ChainError } from '../rpc/chain-error';
import { checkedAddress } from './evm-payout-checks';
import { NonceProof, NonceProofHints, NonceProofStore } from './nonce-proofs';
import { EvmPayoutTransport, NonceConsumer } from './payout-transport';

// EIP-7702 (as EIP-2): an authorization whose s is above half the curve order is invalid.
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
// Blocks read, body by body, when a node has no state deep enough to search a nonce by counts.
const MAX_BODY_SCAN = 512;

/** The transport's reads of the head and of a wallet's count that the search is made of. */
export type NonceSearchReads = Pick<EvmPayoutTransport, 'headBlockNumber' | 'transactionCount'>;

/**
 * EthersPayoutTransport's nonceConsumer: the transaction (or EIP-7702 authorization) that used a
 * wallet's nonce, searched by counts and proven by the block that holds it.
 */
export class EvmNonceConsumers {
  private readonly consumerHints = new NonceProofHints();

  constructor(
    private readonly network: NetworkConfig,
    private readonly rpc: EvmRpc,
    private readonly proofs: NonceProofStore | undefined,
    private readonly transport: NonceSearchReads,
  ) {}

  /**
   * Counts at numbered blocks are the same on every node that has the block (a node that lacks
   * it answers an error), so the search cannot be misled by a lagging backend, only stopped. The
   * proof itself is the block: it must hold the wallet's transaction with this nonce, or an
   * EIP-7702 authorization of it that the counts prove was applied there. A proof, once made, is
   * stored (when a store is given) and used again while its block stands.
   */
  async nonceConsumer(address: string, nonce: number): Promise<NonceConsumer | null> {
    const owner = checkedAddress(address, 'address', this.network.name).toLowerCase();
    const hintKey = `${owner}:${nonce}`;
    const known =
      this.consumerHints.get(hintKey) ??
      (await this.proofs?.find(this.network.name, owner, nonce)) ??
      undefined;
    const proof = await this.consumerProof(owner, nonce, known);
    if (!proof) return null;
    const after = await this.transport.headBlockNumber();
    if (after < proof.blockNumber) return null;
    const { txHash, blockNumber, blockHash } = proof;
    const confirmations = after - blockNumber + 1;
    const replaces =
      known !== undefined && (known.blockHash !== proof.blockHash || known.txHash !== proof.txHash);
    // A known proof gives way only to a confirmed one: a proof drawn from a backend on a short
    // side fork is used this tick (too shallow to act on) but replaces nothing (review r4, F4).
    if (!replaces || confirmations >= this.network.confirmations) {
      if (known === undefined || replaces) await this.proofs?.save(this.network.name, proof);
      this.consumerHints.set(hintKey, proof);
    }
    return { txHash, blockNumber, blockHash, confirmations };
  }

  /**
   * A proof made earlier (by this process, or stored by any) holds while its block is still the
   * chain's at that height: the same hash is the same transactions on the same parent. It is
   * needed: a proof waits for its confirmations (128 on Polygon), and by then a pruned node has
   * no state left that deep to search with. Otherwise a search by counts; where a node has no
   * state at some block, the block bodies below the last block known to have used the nonce,
   * where only the wallet's own transactions prove anything.
   */
  private async consumerProof(
    owner: string,
    nonce: number,
    known: NonceProof | undefined,
  ): Promise<NonceProof | null> {
    if (known !== undefined) {
      const hash = await this.blockHashAt(known.blockNumber);
      if (hash === known.blockHash) return known;
      // Another block at that height (or none): not used this tick, never forgotten. One read is
      // one backend's word (behind a load balancer, one may sit on a short side fork): no proof
      // of a reorg. Kept, it is checked again next tick; a real reorg's new proof, found by the
      // search below, replaces it (`save` upserts), and a proof whose block is not the chain's
      // is never used. Forgotten, a pruned node could not make it again (review r4, F4).
    }
    const head = await this.transport.headBlockNumber();
    const countAt = (block: number) => this.transport.transactionCount(owner, block);
    if ((await countAt(head)) <= nonce) return null;
    // The lowest block known to have used the nonce, kept as the search goes: a node without
    // state further down leaves the bodies below it to read.
    const search = { used: head };
    try {
      await this.firstBlockPastNonce(countAt, nonce, search);
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      return this.scanBodiesForNonce(owner, nonce, search.used);
    }
    return this.consumerIn(search.used, owner, nonce, true);
  }

  /**
   * The wallet's count before and after the block, read by hash (EIP-1898): which authorization
   * of the block took the nonce, if one did. A type-4 transaction is mined with its invalid
   * authorizations skipped (another chain's id, a nonce the wallet has not reached or has passed):
   * being in the block proves nothing alone, and the counts by number may come from another
   * fork than the block read. Null where a count cannot be read.
   */
  private async countsAround(
    owner: string,
    block: { hash: string; parentHash: string },
  ): Promise<{ before: number; after: number } | null> {
    const countBy = (blockHash: string) =>
      this.rpc.call('eth_getTransactionCount', async (provider) =>
        Number(
          (await provider.send('eth_getTransactionCount', [
            owner,
            { blockHash, requireCanonical: true },
          ])) as string,
        ),
      );
    try {
      return { before: await countBy(block.parentHash), after: await countBy(block.hash) };
    } catch (error) {
      if (error instanceof ChainError) return null;
      throw error;
    }
  }

  /** The hash of the chain's block at `number` (lowercase), null where the node has none. */
  private async blockHashAt(number: number): Promise<string | null> {
    const block = await this.rpc.call('eth_getBlockByNumber', async (provider) => {
      const answer: unknown = await provider.send('eth_getBlockByNumber', [
        toQuantity(number),
        false,
      ]);
      return answer as { number?: string; hash?: string } | null;
    });
    if (!block || typeof block.hash !== 'string') return null;
    if (Number(block.number) !== number) {
      throw this.error('transient', `eth_getBlockByNumber: asked for ${number}, got another block`);
    }
    return block.hash.toLowerCase();
  }

  /**
   * Downwards in doubling steps (recent state first: pruned nodes keep only recent blocks'
   * state), then a binary search for the first block whose count passes the nonce.
   */
  private async firstBlockPastNonce(
    countAt: (block: number) => Promise<number>,
    nonce: number,
    search: { used: number },
  ): Promise<void> {
    let unused = -1;
    for (let step = 1; search.used > 0; step *= 2) {
      const candidate = Math.max(0, search.used - step);
      if ((await countAt(candidate)) > nonce) search.used = candidate;
      else {
        unused = candidate;
        break;
      }
    }
    while (search.used - unused > 1) {
      const middle = Math.floor((search.used + unused) / 2);
      if ((await countAt(middle)) > nonce) search.used = middle;
      else unused = middle;
    }
  }

  /**
   * The wallet's own transaction with `nonce` in the bodies of the blocks from `from` down. No
   * count proves which of these blocks used the nonce, so an authorization found here proves
   * nothing: a copy of one signed for another chain, or replayed, is mined as well.
   */
  private async scanBodiesForNonce(
    owner: string,
    nonce: number,
    from: number,
  ): Promise<NonceProof | null> {
    for (let number = from; number >= 0 && number > from - MAX_BODY_SCAN; number--) {
      const found = await this.consumerIn(number, owner, nonce, false);
      if (found) return found;
    }
    return null;
  }

  /**
   * `owner`'s transaction with `nonce` in block `number`; or else, when `authorizations` (the
   * counts said this block used the nonce), the transaction whose authorization took it, as the
   * counts around the block read by its hash confirm. Null if neither (or the block is unknown).
   */
  private async consumerIn(
    number: number,
    owner: string,
    nonce: number,
    authorizations: boolean,
  ): Promise<NonceProof | null> {
    const block = await this.rpc.call('eth_getBlockByNumber', async (provider) => {
      const answer: unknown = await provider.send('eth_getBlockByNumber', [
        toQuantity(number),
        true,
      ]);
      return answer as {
        number?: string;
        hash?: string;
        parentHash?: string;
        transactions?: unknown[];
      } | null;
    });
    if (!block || !Array.isArray(block.transactions)) return null;
    if (Number(block.number) !== number) {
      throw this.error('transient', `eth_getBlockByNumber: asked for ${number}, got another block`);
    }
    const blockHash = String(block.hash).toLowerCase();
    const parentHash = String(block.parentHash).toLowerCase();
    const proof = (txHash: string, byAuthorization: boolean): NonceProof => ({
      address: owner,
      nonce,
      txHash: checkedTransactionHash(txHash, this.network.name),
      blockNumber: number,
      blockHash,
      byAuthorization,
    });
    const transactions = block.transactions as BlockTransaction[];
    for (const transaction of transactions) {
      if (
        typeof transaction.from === 'string' &&
        transaction.from.toLowerCase() === owner &&
        Number(transaction.nonce) === nonce &&
        typeof transaction.hash === 'string'
      ) {
        return proof(transaction.hash, false);
      }
    }
    if (!authorizations) return null;
    // Or an EIP-7702 authorization the owner signed with this nonce, in anyone's type-4
    // transaction: applied, it takes the owner's nonce as a transaction of its own would.
    const counts = await this.countsAround(owner, { hash: blockHash, parentHash });
    if (!counts || counts.before > nonce || nonce >= counts.after) return null;
    const txHash = authorizationConsumer(
      transactions,
      owner,
      nonce,
      counts.before,
      BigInt(this.network.chainId),
    );
    // The counts said this block used the nonce and the block says otherwise: two views of the
    // chain in one search (a reorg, or a backend on another fork). No proof; look again later.
    return txHash === null ? null : proof(txHash, true);
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return new ChainError(kind, message, this.network.name);
  }
}

/** A transaction of a block read with its bodies (eth_getBlockByNumber, true). */
interface BlockTransaction {
  hash?: string;
  from?: string;
  nonce?: string;
  authorizationList?: unknown;
}

/**
 * The transaction whose authorization took `owner`'s `nonce`, found by replaying the wallet's
 * count through the block from `countBefore` (its count at the parent): a transaction the wallet
 * sends takes its own nonce first (EIP-7702: before its authorization list is processed), then
 * each valid authorization of the wallet's with the count's current value takes one. The first
 * authorization carrying `nonce` need not be the one applied: one mined while the wallet's count
 * was still below it is skipped, and a copy further on may apply once the count gets there.
 */
export function authorizationConsumer(
  transactions: BlockTransaction[],
  owner: string,
  nonce: number,
  countBefore: number,
  chainId: bigint,
): string | null {
  let next = countBefore;
  for (const transaction of transactions) {
    if (typeof transaction.from === 'string' && transaction.from.toLowerCase() === owner) {
      next = Number(transaction.nonce) + 1;
    }
    if (next > nonce) return null;
    if (!Array.isArray(transaction.authorizationList)) continue;
    for (const authorization of transaction.authorizationList) {
      if (!authorizedBy(authorization, owner, next, chainId)) continue;
      if (next === nonce && typeof transaction.hash === 'string') return transaction.hash;
      next += 1;
    }
  }
  return null;
}

/**
 * Whether an authorization of a block's type-4 transaction is `owner`'s (its signature recovers
 * to it: the node's `authority` field, if any, is not trusted), with `nonce`, and valid on this
 * chain: signed for its id or for any chain (0). One signed for another chain is skipped here.
 */
function authorizedBy(
  authorization: unknown,
  owner: string,
  nonce: number,
  chainId: bigint,
): boolean {
  const entry = authorization as Record<string, unknown> | null;
  if (typeof entry !== 'object' || entry === null || Number(entry.nonce) !== nonce) return false;
  try {
    const signedFor = BigInt(String(entry.chainId));
    if (signedFor !== 0n && signedFor !== chainId) return false;
    if (BigInt(String(entry.s)) > SECP256K1_HALF_N) return false;
    const signer = verifyAuthorization(
      {
        address: String(entry.address),
        nonce: BigInt(String(entry.nonce)),
        chainId: signedFor,
      },
      Signature.from({
        r: String(entry.r),
        s: String(entry.s),
        yParity: Number(entry.yParity ?? entry.v) as 0 | 1,
      }),
    );
    return signer.toLowerCase() === owner;
  } catch {
    return false;
  }
}
