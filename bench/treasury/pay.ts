import type { Devnet } from '../../test/support/devnet';
import { Payer, type Rpc } from '../kit/chain';
import { sleep } from '../kit/clock';

/*
 * Pays many addresses quickly: USDT transfers from the devnet's payer, signed here with
 * consecutive nonces (bench/deposits' Payer, no RPC per transfer) and sent in JSON-RPC batches
 * while the devnet keeps mining a block a second (about 580 transfers fill a block).
 * devnet.transferMany would send them one by one (75 ms each on a busy 2-core machine) and mines
 * a single block with mining paused, so it cannot take more than one block's worth.
 */

const RAW_BATCH = 500;
// Signing is CPU work: let the event loop turn now and then (anvil's log pipe is read here).
const SIGNATURES_PER_TURN = 200;

export async function payAll(
  devnet: Devnet,
  rpc: Rpc,
  payments: Array<{ to: string; amount: string }>,
): Promise<void> {
  const payer = await Payer.create(devnet, rpc);
  const signed: string[] = [];
  for (const payment of payments) {
    signed.push(await payer.sign(payment.to, payment.amount));
    if (signed.length % SIGNATURES_PER_TURN === 0) await sleep(0);
  }
  for (let start = 0; start < signed.length; start += RAW_BATCH) {
    const answers = await rpc.batch(
      signed.slice(start, start + RAW_BATCH).map((raw) => ({
        method: 'eth_sendRawTransaction',
        params: [raw],
      })),
    );
    const refused = answers.find((answer) => answer.error !== undefined);
    if (refused?.error) throw new Error(refused.error);
  }
}
