import { TronWeb } from 'tronweb';
import type { FakeTronNode } from '../support/fake-tron-node';
import { inBatches } from './evm-soak-checks';

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** A mined transaction as the fake node's HTTP API prints it, decoded for the soak's checks. */
export interface MinedTronTransaction {
  txid: string;
  /** Base58 address of the signer (owner_address). */
  owner: string;
  /** Sun the transaction cost its payer (the info's fee; absent = 0). */
  fee: bigint;
  succeeded: boolean;
  /** TRC-20 Transfer logs, base58 addresses, with their index in the info's log list. */
  transfers: Array<{ token: string; from: string; to: string; amount: bigint; logIndex: number }>;
}

const base58 = (hex: string): string => TronWeb.address.fromHex(hex) as string;

interface WireLog {
  address: string;
  topics?: string[];
  data: string;
}
interface WireInfo {
  id: string;
  fee?: number;
  log?: WireLog[];
}
interface WireTransaction {
  txID: string;
  ret?: Array<{ contractRet?: string }>;
  raw_data?: { contract?: Array<{ parameter?: { value?: { owner_address?: unknown } } }> };
}

/**
 * One read of the fake node's HTTP API. A read the connection failed (a kept-alive socket the
 * node's server closed as it was reused, under a loaded machine: "fetch failed") is tried again:
 * the reads change nothing, and the checks read the whole chain in thousands of them.
 */
async function call<T>(node: FakeTronNode, path: string, body: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${node.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as T;
    } catch (error) {
      if (attempt === 5 || !(error instanceof TypeError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** Every transaction mined from block 0 to the head, read from the node's HTTP API. */
export async function minedTronTransactions(node: FakeTronNode): Promise<MinedTronTransaction[]> {
  const mined: MinedTronTransaction[] = [];
  const numbers = Array.from({ length: node.headBlockNumber + 1 }, (_, num) => num);
  const blocks = await inBatches(numbers, (num) =>
    Promise.all([
      call<{ transactions?: WireTransaction[] }>(node, '/wallet/getblockbynum', { num }),
      call<WireInfo[]>(node, '/wallet/gettransactioninfobyblocknum', { num }),
    ]),
  );
  for (const [block, infos] of blocks) {
    for (const transaction of block.transactions ?? []) {
      const info = (Array.isArray(infos) ? infos : []).find((row) => row.id === transaction.txID);
      const owner = transaction.raw_data?.contract?.[0]?.parameter?.value?.owner_address;
      if (!info || typeof owner !== 'string') continue;
      const logs = info.log ?? [];
      mined.push({
        txid: transaction.txID,
        owner: base58(owner),
        fee: BigInt(info.fee ?? 0),
        succeeded: (transaction.ret?.[0]?.contractRet ?? 'SUCCESS') === 'SUCCESS',
        transfers: logs.flatMap((log, logIndex) =>
          log.topics?.[0] === TRANSFER_TOPIC && log.topics.length === 3
            ? [
                {
                  token: base58(`41${log.address.slice(-40)}`),
                  from: base58(`41${log.topics[1].slice(24)}`),
                  to: base58(`41${log.topics[2].slice(24)}`),
                  amount: BigInt(`0x${log.data}`),
                  logIndex,
                },
              ]
            : [],
        ),
      });
    }
  }
  return mined;
}

/** Attempts at a setup transaction whose connection to the fake node failed. */
const SEND_ATTEMPTS = 4;
const CONNECTION_ERRORS = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT'];

/**
 * The connection failed (under a loaded machine the node's server resets a kept-alive socket as
 * it is reused), not the node refusing: the request may or may not have reached it.
 */
function connectionFailed(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && CONNECTION_ERRORS.includes(code)) return true;
    if (typeof message === 'string' && /socket hang up|ECONNRESET/.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** Runs `attempt` again (boundedly) when its connection failed, after `safe` says it may. */
async function onConnectionFailure<T>(attempt: () => Promise<T>, safe: () => boolean): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n === SEND_ATTEMPTS || !connectionFailed(error) || !safe()) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * n));
    }
  }
}

/**
 * Signs once and broadcasts; a broadcast whose connection failed is sent again only while the
 * node holds no transaction of that txid (pending or mined): one that reached it is not sent
 * twice, and is taken as sent.
 */
async function sendSigned(node: FakeTronNode, unsigned: unknown, key: string): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: node.url });
  const signed = await tronWeb.trx.sign(unsigned as never, key);
  const txid = (signed as { txID: string }).txID;
  const reached = () => node.broadcasts.some((broadcast) => broadcast.txid === txid);
  try {
    const answer = await onConnectionFailure(
      () => tronWeb.trx.sendRawTransaction(signed) as Promise<{ result?: boolean }>,
      () => !reached(),
    );
    if (!answer.result) throw new Error(`the fake TRON node refused: ${JSON.stringify(answer)}`);
  } catch (error) {
    if (!(connectionFailed(error) && reached())) throw error;
  }
  node.mineBroadcasts();
  return txid;
}

/** An operator's TRX transfer (TransferContract), mined at once; its txid, to book. */
export async function sendTrx(
  node: FakeTronNode,
  key: string,
  to: string,
  sun: bigint,
): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: node.url });
  const from = TronWeb.address.fromPrivateKey(key) as string;
  // Building changes nothing on the node: tried again whenever its connection failed.
  const unsigned = await onConnectionFailure(
    () => tronWeb.transactionBuilder.sendTrx(to, Number(sun), from),
    () => true,
  );
  return sendSigned(node, unsigned, key);
}

/** Stakes `sun` of the account's TRX for energy (FreezeBalanceV2), mined at once; its txid. */
export async function stakeTrx(node: FakeTronNode, key: string, sun: bigint): Promise<string> {
  const tronWeb = new TronWeb({ fullHost: node.url });
  const owner = TronWeb.address.fromPrivateKey(key) as string;
  const unsigned = await onConnectionFailure(
    () => tronWeb.transactionBuilder.freezeBalanceV2(Number(sun), 'ENERGY', owner),
    () => true,
  );
  return sendSigned(node, unsigned, key);
}
