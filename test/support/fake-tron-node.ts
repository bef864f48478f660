/**
 * TEST DOUBLE: a fake TRON full node, NOT a TRON implementation.
 *
 * No TRON node runs here (java-tron needs Docker or JDK 8), so TRON tests talk to this small
 * in-process HTTP server. It answers the few java-tron FullNode HTTP endpoints our code and
 * tronweb call, in java-tron's response shapes (visible=false: hex addresses, protobuf JSON that
 * leaves out zero values, errors as HTTP 200 with {"Error": ...}), over a chain it keeps in memory.
 * Transaction ids and signature checks come from tronweb itself: an id is the SHA-256 of the
 * raw_data protobuf tronweb encodes, and a broadcast is accepted only when the signer tronweb
 * recovers from (txID, signature) is the transaction's owner.
 *
 * What it does not do: execute contracts (beyond TRC-20 transfer() and balanceOf()), charge
 * fees, check TAPOS, sign the transactions of the blocks it mines (addTransferBlock's
 * transactions carry no signature), roll balances back on reorg(), or support visible=true.
 *
 * addTransferBlock: outcomes are what the test says: a transfer succeeds (one Transfer log)
 * unless it is given a `failure`; balances are not touched.
 * Broadcasts: accepted ones stay pending (gettransactionbyid finds them) until mineBroadcasts()
 * puts them into a block or dropBroadcasts() forgets them (a node restart). A TRC-20 transfer()
 * among them succeeds with the Transfer log its call data describes; for a token the test gave
 * balances to (setTokenBalance) it moves them, and fails with REVERT and no log when the sender
 * lacks the amount.
 * Time: block n has timestamp genesis + 3 s * n, so mining (mineEmpty) is the clock. The
 * transactions triggersmartcontract builds expire 60 s after the head they reference, like
 * java-tron's default; broadcast refuses them from the block at or past their expiration on
 * (TRANSACTION_EXPIRATION_ERROR), and mineBroadcasts() drops them instead of mining them.
 * /walletsolidity/getnowblock answers the block `solidLag` blocks below the head (19 by default,
 * as with 27 witnesses).
 * Block ids follow TRON's layout (8-byte number + 24 bytes of a hash) but the hash is of our own
 * header summary, not of a real protobuf header.
 *
 * Endpoints: /wallet/getnowblock, /walletsolidity/getnowblock, /wallet/getblockbynum,
 * /wallet/gettransactioninfobyblocknum, /wallet/gettransactioninfobyid,
 * /wallet/gettransactionbyid, /wallet/getaccount, /wallet/triggersmartcontract,
 * /wallet/triggerconstantcontract (balanceOf only), /wallet/broadcasttransaction.
 * triggerconstantcontract also answers decimals(): 6 (TRON USDT's) for any contract unless
 * setTokenDecimals said otherwise.
 */
import { createHash } from 'node:crypto';
import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo } from 'node:net';
import { TronWeb, utils } from 'tronweb';
import { FakeTronBalances } from './fake-tron-balances';

export interface FakeTransfer {
  /** base58 T... addresses. */
  contract: string;
  from: string;
  to: string;
  amount: bigint;
  /**
   * The transaction failed with this contract result: no logs, `result: FAILED`. In a
   * transaction of several transfers, the first one's failure counts.
   */
  failure?: FakeFailure;
}

export interface FakeTronNodeOptions {
  /** How many blocks the solidified head trails the head (19 by default). */
  solidLag?: number;
}

/** receipt.result values of failed contract calls (java-tron's contractResult enum). */
export type FakeFailure = 'REVERT' | 'OUT_OF_ENERGY';

export interface FakeRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingHttpHeaders;
}

/**
 * unavailable: HTTP 503 (TronGrid or a gateway overloaded); refuse: nothing listens; hang: no
 * answer ever; rate-limited: java-tron's own limiter ({"Error": ...} with HTTP 200).
 */
export type FakeOutage = 'unavailable' | 'refuse' | 'hang' | 'rate-limited';

type Json = Record<string, unknown>;

interface TriggerValue {
  data: string;
  owner_address: string;
  contract_address: string;
  call_value?: number;
}

interface RawData {
  contract: Array<{
    parameter: { value: TriggerValue; type_url: string };
    type: 'TriggerSmartContract';
  }>;
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  fee_limit?: number;
  timestamp: number;
}

interface BlockTransaction {
  ret: Array<{ contractRet: 'SUCCESS' | FakeFailure }>;
  /** Only on broadcast transactions. */
  signature?: string[];
  txID: string;
  /** RawData for addTransferBlock's transactions, as posted for broadcasts. */
  raw_data: unknown;
  raw_data_hex: string;
}

interface FakeBlock {
  number: number;
  blockId: string;
  parentHash: string;
  timestamp: number;
  transactions: BlockTransaction[];
  infos: Json[];
}

// tronweb's transaction and crypto helpers are untyped (`any`): these are the parts we use.
interface TronWebTransactionCodec {
  txJsonToPb(transaction: unknown): unknown;
  txPbToTxID(protobuf: unknown): string;
  txPbToRawDataHex(protobuf: unknown): string;
}
const codec: TronWebTransactionCodec = utils.transaction;
const recoverSigner: (hash: string, signature: string) => string = utils.crypto.ecRecover;

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SELECTOR = 'a9059cbb';
const BALANCE_OF_SELECTOR = '70a08231';
const DECIMALS_SELECTOR = '313ce567';
const DEFAULT_TOKEN_DECIMALS = 6;
const DEFAULT_SOLID_LAG = 19;
const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
const BLOCK_INTERVAL_MS = 3_000;
const EXPIRATION_MS = 60_000;
const WITNESS = '41' + 'be'.repeat(20);
const TRANSFER_CALL = new RegExp(`^${TRANSFER_SELECTOR}0{24}([0-9a-f]{40})([0-9a-f]{64})$`, 'i');
const FAILURE_MESSAGES: Record<FakeFailure, string> = {
  REVERT: 'REVERT opcode executed',
  OUT_OF_ENERGY: "Not enough energy for 'SSTORE' operation executing",
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const word = (hex: string): string => hex.padStart(64, '0');
const hexAddress = (base58: string): string => TronWeb.address.toHex(base58).toLowerCase();
const utf8Hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

/** txID and raw_data_hex exactly as tronweb (and so a node) encodes this raw_data. */
function encode(rawData: unknown): { txID: string; raw_data_hex: string } {
  const protobuf = codec.txJsonToPb({ raw_data: rawData, visible: false });
  return {
    txID: codec.txPbToTxID(protobuf).replace(/^0x/, ''),
    raw_data_hex: codec.txPbToRawDataHex(protobuf).toLowerCase(),
  };
}

export class FakeTronNode {
  /** Every request that reached the server, in order, outages included. */
  readonly requests: FakeRequest[] = [];
  /** Transactions accepted by /wallet/broadcasttransaction, as posted, with their ids. */
  readonly broadcasts: Array<{ txid: string; transaction: Json }> = [];
  /** How many blocks /walletsolidity/getnowblock trails the head. */
  solidLag: number;
  /** Transactions built by triggersmartcontract so far. */
  private builds = 0;
  private readonly blocks: FakeBlock[] = [];
  /** Accepted broadcasts not mined yet, by id, in the order they came. */
  private readonly pending = new Map<string, Json>();
  private readonly balances = new FakeTronBalances();
  /** decimals() per contract (hex); null: no contract at the address. */
  private readonly decimals = new Map<string, number | null>();
  private readonly server: Server;
  private port = 0;
  private outage: FakeOutage | null = null;
  private forks = 0;
  private readonly genesisTimestamp =
    Math.floor(Date.now() / BLOCK_INTERVAL_MS) * BLOCK_INTERVAL_MS;

  constructor(options: FakeTronNodeOptions = {}) {
    this.solidLag = options.solidLag ?? DEFAULT_SOLID_LAG;
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.blocks.push(this.makeBlock(0, '0'.repeat(64), []));
  }

  async start(): Promise<string> {
    await this.listen(0);
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise((resolve) => this.server.close(resolve));
  }

  private get head(): FakeBlock {
    return this.blocks[this.blocks.length - 1];
  }

  get headBlockNumber(): number {
    return this.blocks.length - 1;
  }

  blockId(blockNumber: number): string | undefined {
    return this.blocks[blockNumber]?.blockId;
  }

  /** Timestamp (ms) of a block; the head's is the fake chain's "now". */
  blockTimestamp(blockNumber = this.headBlockNumber): number {
    return this.timestampOf(blockNumber);
  }

  /** The TRX balance getaccount reports (base58 address); setting one creates the account. */
  setTrxBalance(address: string, sun: bigint): void {
    this.balances.setTrx(hexAddress(address), sun);
  }

  /** A TRC-20 balance balanceOf reports; mined transfer() broadcasts of the token move it. */
  setTokenBalance(contract: string, address: string, units: bigint): void {
    this.balances.setToken(hexAddress(contract), hexAddress(address), units);
  }

  /**
   * What decimals() of the contract answers (6 until set); null makes the address one without a
   * contract, which java-tron refuses with CONTRACT_VALIDATE_ERROR.
   */
  setTokenDecimals(contract: string, decimals: number | null): void {
    this.decimals.set(hexAddress(contract), decimals);
  }

  tokenBalance(contract: string, address: string): bigint {
    return this.balances.tokenOf(hexAddress(contract), hexAddress(address));
  }

  /** Ids of accepted broadcasts that are not mined (nor dropped) yet. */
  get pendingTxIds(): string[] {
    return [...this.pending.keys()];
  }

  /** Forgets the broadcasts not mined yet, as a node restart would. */
  dropBroadcasts(): void {
    this.pending.clear();
  }

  /** Mines one block; an inner array is one transaction emitting several Transfer logs. */
  addTransferBlock(transfers: Array<FakeTransfer | FakeTransfer[]>): {
    blockNumber: number;
    txIds: string[];
  } {
    const number = this.blocks.length;
    const timestamp = this.timestampOf(number);
    const transactions = transfers.map((group, index) =>
      this.transferTransaction(Array.isArray(group) ? group : [group], number, timestamp, index),
    );
    const block = this.makeBlock(number, this.blocks[number - 1].blockId, transactions);
    this.blocks.push(block);
    return {
      blockNumber: number,
      txIds: block.transactions.map((transaction) => transaction.txID),
    };
  }

  /** Mines `count` blocks without transactions; returns the new head. */
  mineEmpty(count = 1): number {
    for (let mined = 0; mined < count; mined++) {
      this.blocks.push(this.makeBlock(this.blocks.length, this.head.blockId, []));
    }
    return this.headBlockNumber;
  }

  /**
   * Mines one block holding every pending broadcast, as posted (signatures included), except
   * those expired by the new block's timestamp: those are dropped, never mined. A reorg drops
   * them like any transaction of the replaced blocks.
   */
  mineBroadcasts(): { blockNumber: number; txIds: string[] } {
    const number = this.blocks.length;
    const timestamp = this.timestampOf(number);
    const entries = [...this.pending]
      .filter(([, transaction]) => !isExpiredAt(transaction, timestamp))
      .map(([txid, transaction]) => this.broadcastEntry(txid, transaction, number, timestamp));
    this.pending.clear();
    this.blocks.push(this.makeBlock(number, this.head.blockId, entries));
    return { blockNumber: number, txIds: entries.map((entry) => entry.transaction.txID) };
  }

  /** Replaces blocks fromBlock..head with as many new, empty blocks with other ids. */
  reorg(fromBlock: number): void {
    if (fromBlock < 1 || fromBlock > this.headBlockNumber) {
      throw new Error(`cannot reorg from block ${fromBlock}`);
    }
    const count = this.blocks.length - fromBlock;
    this.blocks.length = fromBlock;
    this.forks += 1;
    this.mineEmpty(count);
  }

  async down(outage: FakeOutage = 'unavailable'): Promise<void> {
    this.outage = outage;
    if (outage === 'refuse') await this.stop();
  }

  async up(): Promise<void> {
    const refused = this.outage === 'refuse';
    this.outage = null;
    if (refused) await this.listen(this.port);
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private timestampOf(blockNumber: number): number {
    return this.genesisTimestamp + blockNumber * BLOCK_INTERVAL_MS;
  }

  private makeBlock(number: number, parentHash: string, entries: TransactionEntry[]): FakeBlock {
    const transactions = entries.map((entry) => entry.transaction);
    const timestamp = this.timestampOf(number);
    const transactionIds = transactions.map((transaction) => transaction.txID);
    const summary = [number, parentHash, timestamp, this.forks, ...transactionIds];
    const blockId = number.toString(16).padStart(16, '0') + sha256(summary.join(':')).slice(16);
    const infos = entries.map((entry) => entry.info);
    return { number, blockId, parentHash, timestamp, transactions, infos };
  }

  /** A TRC-20 transfer() call and its execution result, one Transfer log per moved amount. */
  private transferTransaction(
    transfers: FakeTransfer[],
    blockNumber: number,
    blockTimestamp: number,
    index: number,
  ): TransactionEntry {
    const [first] = transfers;
    if (!first) throw new Error('a transaction needs at least one transfer');
    const data =
      TRANSFER_SELECTOR + word(hexAddress(first.to).slice(2)) + word(first.amount.toString(16));
    const owner = hexAddress(first.from);
    const contract = hexAddress(first.contract);
    // Distinct timestamps keep identical transfers in one block distinct transactions.
    const createdAt = blockTimestamp - BLOCK_INTERVAL_MS + index;
    const rawData = this.rawData(
      owner,
      contract,
      data,
      100_000_000,
      this.blocks[blockNumber - 1],
      createdAt,
    );
    const transaction: BlockTransaction = {
      ret: [{ contractRet: first.failure ?? 'SUCCESS' }],
      ...encode(rawData),
      raw_data: rawData,
    };
    const logs = transfers.map((transfer) =>
      transferLog(
        hexAddress(transfer.contract),
        hexAddress(transfer.from),
        hexAddress(transfer.to),
        transfer.amount.toString(16),
      ),
    );
    const info = executionInfo(transaction.txID, blockNumber, blockTimestamp, contract, {
      logs,
      failure: first.failure,
    });
    return { transaction, info };
  }

  /**
   * A broadcast transaction in a block; a TRC-20 transfer() call moves the balances of an
   * accounted token and emits its Transfer log, or fails with REVERT when the sender lacks it.
   */
  private broadcastEntry(
    txid: string,
    posted: Json,
    blockNumber: number,
    blockTimestamp: number,
  ): TransactionEntry {
    const value = triggerValueOf(posted.raw_data);
    const owner = typeof value?.owner_address === 'string' ? value.owner_address.toLowerCase() : '';
    const contract =
      typeof value?.contract_address === 'string' ? value.contract_address.toLowerCase() : '';
    const call = TRANSFER_CALL.exec(typeof value?.data === 'string' ? value.data : '');
    const to = call ? `41${call[1].toLowerCase()}` : '';
    const amount = call ? BigInt(`0x${call[2]}`) : 0n;
    const failure: FakeFailure | undefined =
      call && !this.balances.transfer(contract, owner, to, amount) ? 'REVERT' : undefined;
    const logs = call && !failure ? [transferLog(contract, owner, to, call[2].toLowerCase())] : [];
    const transaction: BlockTransaction = {
      ret: [{ contractRet: failure ?? 'SUCCESS' }],
      signature: Array.isArray(posted.signature) ? posted.signature.map(String) : [],
      txID: txid,
      raw_data: posted.raw_data,
      raw_data_hex:
        typeof posted.raw_data_hex === 'string'
          ? posted.raw_data_hex
          : encode(posted.raw_data).raw_data_hex,
    };
    const info = executionInfo(txid, blockNumber, blockTimestamp, contract, { logs, failure });
    return { transaction, info };
  }

  private rawData(
    owner: string,
    contract: string,
    data: string,
    feeLimit: number,
    referenceBlock: FakeBlock,
    timestamp: number,
  ): RawData {
    return {
      contract: [
        {
          parameter: {
            value: { data, owner_address: owner, contract_address: contract },
            type_url: TRIGGER_TYPE_URL,
          },
          type: 'TriggerSmartContract',
        },
      ],
      // TAPOS: bytes 6-7 of the reference block's number and bytes 8-15 of its id.
      ref_block_bytes: referenceBlock.number.toString(16).padStart(16, '0').slice(12),
      ref_block_hash: referenceBlock.blockId.slice(16, 32),
      expiration: referenceBlock.timestamp + EXPIRATION_MS,
      ...(feeLimit > 0 ? { fee_limit: feeLimit } : {}),
      timestamp,
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const text = await readBody(request);
    let body: unknown = Object.fromEntries(url.searchParams);
    try {
      if (text.trim()) body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    this.requests.push({
      method: request.method ?? '',
      path: url.pathname,
      body,
      headers: request.headers,
    });
    if (this.outage === 'hang') return;
    if (this.outage === 'unavailable') {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    const reply = (status: number, value: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(value));
    };
    if (this.outage === 'rate-limited') {
      return reply(
        200,
        nodeError('java.lang.IllegalAccessException', 'lack of computing resources'),
      );
    }
    const route = this.routes[url.pathname];
    if (!route) return reply(404, { Error: `no such endpoint: ${url.pathname}` });
    if (!isJson(body)) {
      return reply(200, nodeError('com.alibaba.fastjson.JSONException', 'not a JSON object'));
    }
    if (body.visible === true) {
      return reply(200, nodeError('java.lang.Exception', 'fake node: visible=true unsupported'));
    }
    try {
      reply(200, route(body));
    } catch (error) {
      reply(
        200,
        nodeError('java.lang.Exception', error instanceof Error ? error.message : String(error)),
      );
    }
  }

  private readonly routes: Record<string, (params: Json) => unknown> = {
    '/wallet/getnowblock': () => blockJson(this.head),
    '/walletsolidity/getnowblock': () =>
      blockJson(this.blocks[Math.max(0, this.headBlockNumber - this.solidLag)]),
    // GetBlockByNumServlet on the solidity API: irreversible blocks only.
    '/walletsolidity/getblockbynum': (params) => {
      const number = blockNumberParameter(params);
      const block =
        number <= this.headBlockNumber - this.solidLag ? this.blocks[number] : undefined;
      return block ? blockJson(block) : {};
    },
    '/wallet/getblockbynum': (params) => {
      const block = this.blocks[blockNumberParameter(params)];
      return block ? blockJson(block) : {};
    },
    // java-tron answers {} for num <= 0 and [] for a block it does not have.
    '/wallet/gettransactioninfobyblocknum': (params) => {
      const number = blockNumberParameter(params);
      return number <= 0 ? {} : (this.blocks[number]?.infos ?? []);
    },
    // GetTransactionInfoByIdServlet: {} for an id no block of the chain holds.
    '/wallet/gettransactioninfobyid': (params) => {
      const id = params.value ?? '';
      if (typeof id !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(id)) {
        throw new Error(`invalid hex value: ${JSON.stringify(id)}`);
      }
      const wanted = id.toLowerCase();
      for (const block of this.blocks) {
        const info = block.infos.find((candidate) => candidate.id === wanted);
        if (info) return info;
      }
      return {};
    },
    // GetTransactionByIdServlet: on-chain or pending, {} otherwise.
    '/wallet/gettransactionbyid': (params) => {
      const id = String(params.value ?? '').toLowerCase();
      const pending = this.pending.get(id);
      if (pending) return pendingTransactionJson(id, pending);
      return this.minedTransaction(id) ?? {};
    },
    // GetAccountServlet: {} for an account that does not exist; a zero balance is left out.
    '/wallet/getaccount': (params) => {
      const address = String(params.address ?? '').toLowerCase();
      const balance = this.balances.trxOf(address);
      if (balance === undefined) return {};
      return { address, ...(balance > 0n ? { balance: Number(balance) } : {}) };
    },
    '/wallet/triggersmartcontract': (params) => this.trigger(params),
    '/wallet/triggerconstantcontract': (params) => this.constantCall(params),
    '/wallet/broadcasttransaction': (params) => this.broadcast(params),
  };

  private minedTransaction(id: string): BlockTransaction | undefined {
    for (const block of this.blocks) {
      const found = block.transactions.find((transaction) => transaction.txID === id);
      if (found) return found;
    }
    return undefined;
  }

  /** TriggerConstantContractServlet for balanceOf(address) of the balances the test set. */
  private constantCall(params: Json): unknown {
    const selector = TronWeb.sha3(String(params.function_selector ?? ''), false).slice(0, 8);
    const parameter = typeof params.parameter === 'string' ? params.parameter.toLowerCase() : '';
    if (selector === DECIMALS_SELECTOR && parameter === '') return this.decimalsCall(params);
    if (selector !== BALANCE_OF_SELECTOR || !/^0{24}[0-9a-f]{40}$/.test(parameter)) {
      return {
        result: {
          code: 'CONTRACT_VALIDATE_ERROR',
          message: utf8Hex('fake node: only balanceOf(address) is supported'),
        },
      };
    }
    const contract = String(params.contract_address ?? '').toLowerCase();
    const balance = this.balances.tokenOf(contract, `41${parameter.slice(24)}`);
    return {
      result: { result: true },
      energy_used: 1_953,
      constant_result: [word(balance.toString(16))],
    };
  }

  /** decimals(): the word it returns, or java-tron's refusal for an address without a contract. */
  private decimalsCall(params: Json): unknown {
    const contract = String(params.contract_address ?? '').toLowerCase();
    const decimals = this.decimals.has(contract)
      ? this.decimals.get(contract)
      : DEFAULT_TOKEN_DECIMALS;
    if (decimals === null || decimals === undefined) {
      return {
        result: {
          code: 'CONTRACT_VALIDATE_ERROR',
          message: utf8Hex('Smart contract is not exist.'),
        },
      };
    }
    return {
      result: { result: true },
      energy_used: 222,
      constant_result: [word(decimals.toString(16))],
    };
  }

  /** TriggerSmartContractServlet: the unsigned transaction, referencing the head block. */
  private trigger(params: Json): unknown {
    for (const key of ['owner_address', 'contract_address', 'function_selector']) {
      if (typeof params[key] !== 'string' || params[key] === '') {
        return nodeError('java.security.InvalidParameterException', `${key} isn't set.`);
      }
    }
    const signature = String(params.function_selector).replace(/\s/g, '');
    const selector = TronWeb.sha3(signature, false).slice(0, 8);
    const data = selector + (typeof params.parameter === 'string' ? params.parameter : '');
    const feeLimit = typeof params.fee_limit === 'number' ? params.fee_limit : 0;
    const owner = String(params.owner_address).toLowerCase();
    const contract = String(params.contract_address).toLowerCase();
    // java-tron stamps the build time from its clock, which its head block follows: here the
    // chain is the clock. A counter keeps two identical calls in one block distinct.
    const builtAt = this.head.timestamp + (this.builds++ % BLOCK_INTERVAL_MS);
    const rawData = this.rawData(owner, contract, data, feeLimit, this.head, builtAt);
    if (typeof params.call_value === 'number' && params.call_value > 0) {
      rawData.contract[0].parameter.value.call_value = params.call_value;
    }
    const { txID, raw_data_hex } = encode(rawData);
    return {
      result: { result: true },
      transaction: { visible: false, txID, raw_data: rawData, raw_data_hex },
    };
  }

  /** BroadcastServlet + Wallet.broadcastTransaction, signature checks only (single-key owner). */
  private broadcast(transaction: Json): unknown {
    const txid = encode(transaction.raw_data).txID;
    const refuse = (code: string, message: string): Json => ({
      code,
      message: utf8Hex(message),
      txid,
    });
    const signatures = Array.isArray(transaction.signature)
      ? transaction.signature.map(String)
      : [];
    const badSize = signatures.find((signature) => !/^[0-9a-fA-F]{130}$/.test(signature));
    if (badSize !== undefined) {
      return refuse(
        'SIGERROR',
        `Validate signature error: Signature size is ${Math.floor(badSize.length / 2)}`,
      );
    }
    if (signatures.length === 0) {
      return refuse('SIGERROR', 'Validate signature error: miss sig or contract');
    }
    if (signatures.length > 1) {
      return refuse(
        'SIGERROR',
        `Validate signature error: Signature count is ${signatures.length} more than key counts of permission : 1`,
      );
    }
    const owner = ownerOf(transaction.raw_data);
    let signer: string;
    try {
      signer = recoverSigner(txid, signatures[0]).toLowerCase();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return refuse('SIGERROR', `Validate signature error: ${reason}`);
    }
    if (signer !== owner) {
      const message = `${signatures[0]} is signed by ${TronWeb.address.fromHex(signer)} but it is not contained of permission.`;
      return refuse('SIGERROR', `Validate signature error: ${message}`);
    }
    if (this.pending.has(txid) || this.minedTransaction(txid)) {
      return refuse('DUP_TRANSACTION_ERROR', 'Transaction already exists.');
    }
    // Manager.validateCommon: expired once the head block's time reaches the expiration.
    if (isExpiredAt(transaction, this.head.timestamp)) {
      const expiration = isJson(transaction.raw_data)
        ? String(transaction.raw_data.expiration)
        : '';
      return refuse(
        'TRANSACTION_EXPIRATION_ERROR',
        `Transaction expiration, transaction expiration time is ${expiration}, but headBlockTime is ${this.head.timestamp}`,
      );
    }
    this.broadcasts.push({ txid, transaction });
    this.pending.set(txid, transaction);
    return { result: true, txid };
  }
}

interface TransactionEntry {
  transaction: BlockTransaction;
  info: Json;
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a posted transaction's raw_data.expiration is at or before `timestamp`. */
function isExpiredAt(transaction: Json, timestamp: number): boolean {
  const expiration = isJson(transaction.raw_data) ? Number(transaction.raw_data.expiration) : NaN;
  return !(expiration > timestamp);
}

/** A pending transaction as gettransactionbyid prints it: as posted, without `ret`. */
function pendingTransactionJson(txid: string, posted: Json): Json {
  const { signature, raw_data, raw_data_hex } = posted;
  return { signature, txID: txid, raw_data, raw_data_hex };
}

/** Util.printErrorMsg: {"Error": "<exception class> : <message>"}, with HTTP 200. */
function nodeError(exceptionClass: string, message: string): Json {
  return { Error: `class ${exceptionClass} : ${message}` };
}

function blockNumberParameter(params: Json): number {
  const number = Number(params.num ?? 0);
  if (!Number.isSafeInteger(number)) throw new Error(`For input string: "${String(params.num)}"`);
  return number;
}

/** raw_data.contract[0].parameter.value, if the posted raw_data has one. */
function triggerValueOf(rawData: unknown): Json | undefined {
  const contract =
    isJson(rawData) && Array.isArray(rawData.contract) ? rawData.contract[0] : undefined;
  const parameter = isJson(contract) ? contract.parameter : undefined;
  const value = isJson(parameter) ? parameter.value : undefined;
  return isJson(value) ? value : undefined;
}

function ownerOf(rawData: unknown): string {
  const owner = triggerValueOf(rawData)?.owner_address;
  return typeof owner === 'string' ? owner.toLowerCase() : '';
}

/** A Transfer log; addresses as 41-prefixed hex, the amount as hex. */
function transferLog(contract: string, from: string, to: string, amountHex: string): Json {
  return {
    address: contract.slice(2).toLowerCase(),
    topics: [TRANSFER_TOPIC, word(from.slice(2).toLowerCase()), word(to.slice(2).toLowerCase())],
    data: word(amountHex),
  };
}

/**
 * TransactionInfo of a TriggerSmartContract, as gettransactioninfobyid and
 * gettransactioninfobyblocknum print it: `result` (SUCESS) and `log` left out when default/empty.
 */
function executionInfo(
  id: string,
  blockNumber: number,
  blockTimestamp: number,
  contract: string,
  outcome: { logs: Json[]; failure?: FakeFailure },
): Json {
  const { logs, failure } = outcome;
  const energy = 29_631 * Math.max(logs.length, 1);
  return {
    id,
    fee: 345_000,
    blockNumber,
    blockTimeStamp: blockTimestamp,
    contractResult: [failure ? '' : word('1')],
    contract_address: contract.toLowerCase(),
    receipt: { energy_usage_total: energy, net_usage: 345, result: failure ?? 'SUCCESS' },
    ...(failure ? { result: 'FAILED', resMessage: utf8Hex(FAILURE_MESSAGES[failure]) } : {}),
    ...(failure || logs.length === 0 ? {} : { log: logs }),
  };
}

/** Util.printBlock, visible=false; zero values (the genesis number) and empty lists left out. */
function blockJson(block: FakeBlock): Json {
  const rawHeader = {
    ...(block.number > 0 ? { number: block.number } : {}),
    txTrieRoot: sha256(block.transactions.map((transaction) => transaction.txID).join('')),
    witness_address: WITNESS,
    parentHash: block.parentHash,
    version: 32,
    timestamp: block.timestamp,
  };
  return {
    blockID: block.blockId,
    block_header: {
      raw_data: rawHeader,
      witness_signature: sha256(block.blockId).repeat(2) + '00',
    },
    ...(block.transactions.length ? { transactions: block.transactions } : {}),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
