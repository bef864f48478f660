import { Wallet } from 'ethers';
import { DEVNET_ACCOUNTS, type Devnet } from '../../support/devnet';
import type { SeededRandom } from '../../support/seeded-random';
import { waitFor } from '../../support/wait-for';
import type { Load } from './load';

/** What one reorg did, for the report. */
export interface ReorgOutcome {
  depth: number;
  /** Transactions of the dropped blocks, every sender's. */
  dropped: number;
  /** Our payments among them that came back on the new chain, after `holdBlocks` blocks. */
  paymentsReMined: number;
  /** Our payments whose nonce another transaction of the payer took: gone for good. */
  paymentsOut: number;
  /** Others' (payouts', sweeps') transactions sent again at once. */
  othersReplayed: number;
  /** Transactions that waited in the pool at the revert, sent again after those. */
  pooledReplayed: number;
  /** Sends the node refused (e.g. one still in its pool after the revert). */
  refused: number;
}

interface Mined {
  hash: string;
  from: string;
  nonce: number;
  raw: string;
}

const PAYER = DEVNET_ACCOUNTS.payer.address.toLowerCase();

/**
 * A reorg of anvil's last `depth` blocks, as a real chain produces one: the node returns to a
 * snapshot taken `depth` blocks ago and builds a longer chain. The service's transactions of the
 * dropped blocks (payouts, sweeps) are broadcast again at once, as peers would: the same hashes,
 * mined at other heights. Our payments come back only after the new chain has grown `holdBlocks`
 * past the old head (beyond the watcher's reorg window, so a credited payment is taken back
 * first, then credited again), and one payment for an exact-price session (if any) never does:
 * the payer's self-transfer at its nonce takes its place (a double spend), so it must end up
 * booked nowhere.
 *
 * `snapshot` is taken when the fault starts; `strike` waits for `depth` blocks on top of it.
 */
export async function reorg(
  devnet: Devnet,
  load: Load,
  random: SeededRandom,
  snapshot: { id: string; head: number },
  depth: number,
  holdBlocks: number,
): Promise<ReorgOutcome> {
  await waitFor(
    async () => (await devnet.head()) >= snapshot.head + depth,
    120_000,
    `${depth} blocks on the reorg's snapshot`,
  );
  // Our payer has nothing in the pool: what it sent is mined in the blocks about to be dropped.
  await load.holdChain();
  const provider = devnet.provider;
  await provider.send('evm_setIntervalMining', [0]);
  try {
    const head = await devnet.head();
    const mined: Mined[] = [];
    for (let number = snapshot.head + 1; number <= head; number++) {
      const block = (await provider.send('eth_getBlockByNumber', [
        `0x${number.toString(16)}`,
        true,
      ])) as { transactions: Array<{ hash: string; from: string; nonce: string }> };
      for (const tx of block.transactions)
        mined.push({
          hash: tx.hash.toLowerCase(),
          from: tx.from.toLowerCase(),
          nonce: Number(tx.nonce),
          raw: (await provider.send('eth_getRawTransactionByHash', [tx.hash])) as string,
        });
    }
    // What waits in the pool (the service's latest sends) stays in the peers' pools through a
    // reorg: sent again after the replayed blocks' transactions.
    const pooled = await pooledRaw(devnet);
    const reverted = (await provider.send('evm_revert', [snapshot.id])) as boolean;
    if (!reverted) throw new Error(`anvil has no snapshot ${snapshot.id}`);
    let refused = 0;
    const send = async (raw: string) => {
      try {
        await provider.send('eth_sendRawTransaction', [raw]);
      } catch {
        // Still in the pool after the revert (anvil keeps it) or already known: either way on
        // its way into the new chain.
        refused++;
      }
    };
    const others = mined.filter((tx) => tx.from !== PAYER);
    for (const tx of others) await send(tx.raw);
    for (const raw of pooled) await send(raw);
    // The new chain, longer than the old one by holdBlocks, without our payments.
    await provider.send('anvil_mine', [`0x${(head - snapshot.head + holdBlocks).toString(16)}`]);

    const payments = mined.filter((tx) => tx.from === PAYER).sort((a, b) => a.nonce - b.nonce);
    const candidates = payments.filter((tx) => load.transfer(tx.hash)?.session.kind === 'exact');
    const out = candidates.length ? random.pick(candidates) : undefined;
    const payer = new Wallet(DEVNET_ACCOUNTS.payer.privateKey, provider);
    for (const tx of payments) {
      const ours = load.transfer(tx.hash);
      if (tx === out) {
        // Another transaction of the payer at the same nonce: the payment can never be mined.
        const replacement = await payer.signTransaction(
          await payer.populateTransaction({ to: payer.address, value: 0n, nonce: tx.nonce }),
        );
        await send(replacement);
        if (ours) ours.transfer.reorg = 'out';
      } else {
        await send(tx.raw);
        if (ours) ours.transfer.reorg = 're-mined';
      }
    }
    return {
      depth: head - snapshot.head,
      dropped: mined.length,
      paymentsReMined: payments.length - (out ? 1 : 0),
      paymentsOut: out ? 1 : 0,
      othersReplayed: others.length,
      pooledReplayed: pooled.length,
      refused,
    };
  } finally {
    await provider.send('evm_setIntervalMining', [1]);
    // The payments sent again are mined before new ones follow them (the payer's nonces).
    load.resumeChain();
  }
}

/** The raw transactions waiting in anvil's pool (pending, then queued), by sender and nonce. */
async function pooledRaw(devnet: Devnet): Promise<string[]> {
  type Pool = Record<'pending' | 'queued', Record<string, Record<string, { hash: string }>>>;
  const pool = (await devnet.provider.send('txpool_content', [])) as Pool;
  const raws: string[] = [];
  for (const part of [pool.pending, pool.queued])
    for (const byNonce of Object.values(part ?? {}))
      for (const nonce of Object.keys(byNonce).sort((a, b) => Number(a) - Number(b))) {
        const raw = (await devnet.provider.send('eth_getRawTransactionByHash', [
          byNonce[nonce].hash,
        ])) as string | null;
        if (raw) raws.push(raw);
      }
  return raws;
}
