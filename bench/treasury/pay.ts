import type { Client } from 'pg';
import type { Devnet } from '../../test/support/devnet';
import { Payer, type Rpc } from '../kit/chain';
import { sleep, timestamp } from '../kit/clock';
import { pollUntil } from '../kit/poll';
import type { TrackedProcess } from '../kit/processes';
import { paidCount } from '../deposits/database';

/*
 * Pays many addresses quickly: USDT transfers from the devnet's payer, signed here with
 * consecutive nonces (the kit's Payer, no RPC per transfer) and sent in JSON-RPC batches while
 * the devnet keeps mining a block a second (about 580 transfers fill a block).
 * devnet.transferMany would send them one by one (75 ms each on a busy 2-core machine) and mines
 * a single block with mining paused, so it cannot take more than one block's worth.
 */

const RAW_BATCH = 500;
// Signing is CPU work: let the event loop turn now and then (anvil's log pipe is read here).
const SIGNATURES_PER_TURN = 200;

export interface PayContext {
  db: Client;
  rpc: Rpc;
  devnet: Devnet;
  worker: TrackedProcess;
}

/**
 * Pays each session its amount, then waits until the worker has every session of the merchant
 * Paid: how long sending took, and from the last sent until all Paid.
 */
export async function payAndSettle(
  context: PayContext,
  merchantId: string,
  sessions: Array<{ payAddress: string; amount: string }>,
  settle: { timeoutMs: number; pollMs: number },
) {
  const { db, rpc, devnet } = context;
  const startedAt = timestamp();
  const payer = await Payer.create(devnet, rpc);
  const signed: string[] = [];
  for (const session of sessions) {
    signed.push(await payer.sign(session.payAddress, session.amount));
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
  const sentAt = timestamp();
  const allPaid = async () => (await paidCount(db, merchantId)) >= sessions.length;
  if (!(await pollUntil(allPaid, { ...settle, child: context.worker }))) {
    throw new Error(`Timed out after ${settle.timeoutMs / 1000} s waiting for every session Paid.`);
  }
  const paidAt = timestamp();
  return {
    paidAt,
    ms: { send: Math.round(sentAt - startedAt), toAllPaid: Math.round(paidAt - sentAt) },
  };
}
