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
 * What it does not do: execute contracts (beyond TRC-20 transfer() and balanceOf()), check
 * TAPOS, sign the transactions of the blocks it mines (addTransferBlock's transactions carry no
 * signature), roll balances back on reorg(), keep state per block (the solidity API's getaccount
 * answers the head's), or support visible=true.
 *
 * Accounts and fees (fake-tron/accounts.ts, fake-tron/execution.ts): an address is an account
 * once created (setTrxBalance, CreateAccountContract, a TRX transfer to it); a broadcast whose
 * owner is none is refused, as java-tron does. Broadcasts of CreateAccountContract,
 * TransferContract, FreezeBalanceV2Contract, DelegateResourceContract, UnDelegateResourceContract
 * and TriggerSmartContract are run on the pending state when posted (a refusal is the answer) and
 * applied when mined, charging bandwidth and energy and burning TRX as java-tron does; each
 * transaction info's `fee` is exactly the sun taken from its owner's balance. Chain parameters
 * (getEnergyFee...) are served by /wallet/getchainparameters and changed by setChainParameter.
 *
 * addTransferBlock: outcomes are what the test says: a transfer succeeds (one Transfer log)
 * unless it is given a `failure`; balances are not touched, no fee is charged (the info says
 * 345,000 sun: someone else's transaction).
 * Broadcasts: accepted ones stay pending (gettransactionbyid finds them) until mineBroadcasts()
 * puts them into a block or dropBroadcasts() forgets them (a node restart). A TRC-20 transfer()
 * among them succeeds with the Transfer log its call data describes; for a token the test gave
 * balances to (setTokenBalance) it moves them, and fails with REVERT and no log when the sender
 * lacks the amount; it fails with OUT_OF_ENERGY when its energy exceeds what the owner has and
 * its fee_limit allows. A transaction the state refuses by the time it is mined is left out.
 * Time: block n has timestamp genesis + 3 s * n, so mining (mineEmpty) is the clock. The
 * transactions triggersmartcontract builds expire 60 s after the head they reference, like
 * java-tron's default; broadcast refuses them from the block at or past their expiration on
 * (TRANSACTION_EXPIRATION_ERROR), and mineBroadcasts() drops them instead of mining them.
 * /walletsolidity/getnowblock answers the block `solidLag` blocks below the head (19 by default,
 * as with 27 witnesses).
 * Block ids follow TRON's layout (8-byte number + 24 bytes of a hash) but the hash is of our own
 * header summary, not of a real protobuf header.
 *
 * Endpoints: /wallet/getnowblock, /walletsolidity/getnowblock, /wallet/getblock (the head),
 * /wallet/getblockbynum, /walletsolidity/getblockbynum, /wallet/gettransactioninfobyblocknum,
 * /wallet/gettransactioninfobyid, /walletsolidity/gettransactioninfobyid,
 * /wallet/gettransactionbyid, /wallet/getaccount, /walletsolidity/getaccount,
 * /wallet/getaccountresource, /wallet/getdelegatedresourcev2 (and walletsolidity's),
 * /wallet/getchainparameters, /wallet/getenergyprices, /wallet/getbandwidthprices,
 * /wallet/triggersmartcontract, /wallet/triggerconstantcontract (balanceOf, decimals, and
 * transfer as an energy estimate), /wallet/broadcasttransaction.
 * triggerconstantcontract also answers decimals(): 6 (TRON USDT's) for any contract unless
 * setTokenDecimals said otherwise.
 */
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
import { FakeTronAccounts } from './fake-tron/accounts';
import {
  FakeChainParameterName,
  FakeChainParameters,
  FakeChainParameterStore,
} from './fake-tron/chain-parameters';
import {
  callEnergy,
  execute,
  ExecutionOutcome,
  FAILURE_MESSAGES,
  FakeFailure,
  FakeRefusal,
  FakeTronState,
} from './fake-tron/execution';
import {
  encode,
  hexAddress,
  isJson,
  Json,
  nodeError,
  addressField,
  firstContract,
  sha256,
  TRANSFER_SELECTOR,
  transferLog,
  utf8Hex,
  word,
} from './fake-tron/wire';
import {
  BlockTransaction,
  blockJson,
  executionInfo,
  FakeBlock,
  isExpiredAt,
  pendingTransactionJson,
  RawData,
  TransactionEntry,
} from './fake-tron/blocks';

export type { FakeFailure } from './fake-tron/execution';
export type { FakeChainParameterName, FakeChainParameters } from './fake-tron/chain-parameters';

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
  /** Chain parameters other than the defaults (getEnergyFee 210 sun, ...). */
  chainParameters?: Partial<FakeChainParameters>;
  /** Energy a day per whole TRX staked for energy (10 by default; see fake-tron/accounts.ts). */
  energyPerTrx?: bigint;
  /** Bandwidth (bytes) a day per whole TRX staked for bandwidth (1 by default). */
  bandwidthPerTrx?: bigint;
}

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

// tronweb's crypto helpers are untyped (`any`): the one we use.
const recoverSigner: (hash: string, signature: string) => string = utils.crypto.ecRecover;

const BALANCE_OF_SELECTOR = '70a08231';
const DECIMALS_SELECTOR = '313ce567';
const DEFAULT_TOKEN_DECIMALS = 6;
const DEFAULT_SOLID_LAG = 19;
const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
const BLOCK_INTERVAL_MS = 3_000;
const EXPIRATION_MS = 60_000;
const DEFAULT_ENERGY_PER_TRX = 10n;
const DEFAULT_BANDWIDTH_PER_TRX = 1n;

export class FakeTronNode {
  /** Every request that reached the server, in order, outages included. */
  readonly requests: FakeRequest[] = [];
  /** Transactions accepted by /wallet/broadcasttransaction, as posted, with their ids. */
  readonly broadcasts: Array<{ txid: string; transaction: Json }> = [];
  /** How many blocks /walletsolidity/getnowblock trails the head. */
  solidLag: number;
  /** Paths answered HTTP 503 while listed (one endpoint failing, the rest answering). */
  readonly unavailablePaths = new Set<string>();
  /**
   * TRX (sun) /walletsolidity/getaccount answers for an address (base58) while set: a backend
   * behind, still in a state before the address burnt TRX.
   */
  readonly staleSolidTrx = new Map<string, bigint>();
  /**
   * TRX per block of the accounts the test gave TRX (setTrxBalance), for getaccountbalance:
   * hex address -> [block from which it holds it, sun], recorded as blocks are mined.
   */
  private readonly trxHistory = new Map<string, Array<[number, bigint]>>();
  /** Paths whose answers wait for the test (`hold`). */
  private readonly holds = new Map<string, { reach: () => void; released: Promise<void> }>();
  /** Transactions built by triggersmartcontract so far. */
  private builds = 0;
  private readonly blocks: FakeBlock[] = [];
  /** Accepted broadcasts not mined yet, by id, in the order they came. */
  private readonly pending = new Map<string, Json>();
  /** Accounts (TRX, stake, resources) and TRC-20 balances as of the head block. */
  private state: FakeTronState;
  private readonly parameters: FakeChainParameterStore;
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
    this.parameters = new FakeChainParameterStore(options.chainParameters);
    const accounts = new FakeTronAccounts({
      energyPerTrx: options.energyPerTrx ?? DEFAULT_ENERGY_PER_TRX,
      bandwidthPerTrx: options.bandwidthPerTrx ?? DEFAULT_BANDWIDTH_PER_TRX,
    });
    this.state = new FakeTronState(accounts, new FakeTronBalances());
    this.server = createServer((request, response) => {
      this.handle(request, response).catch(() => response.destroy());
    });
    this.blocks.push(this.makeBlock(0, '0'.repeat(64), []));
  }

  /**
   * Holds every answer of `path` until `release()`: `reached` resolves when the first request
   * arrives, so a test can act between a client's request and its answer (e.g. finish a payout
   * while the worker builds its transactions).
   */
  hold(path: string): { reached: Promise<void>; release: () => void } {
    let reach!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.set(path, { reach, released });
    return {
      reached,
      release: () => {
        this.holds.delete(path);
        release();
      },
    };
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

  /**
   * The TRX balance getaccount reports (base58 address); setting one creates the account (an
   * operator's funding, outside the chain's fees).
   */
  setTrxBalance(address: string, sun: bigint): void {
    const hex = hexAddress(address);
    const account =
      this.state.accounts.get(hex) ?? this.state.accounts.create(hex, this.head.timestamp);
    account.balance = sun;
    this.recordTrx(hex, this.headBlockNumber);
  }

  /** Appends the account's TRX to its history when it changed (accounts given TRX only). */
  private recordTrx(hex: string, blockNumber: number): void {
    const balance = this.state.accounts.get(hex)?.balance ?? 0n;
    const history = this.trxHistory.get(hex) ?? [];
    const last = history.at(-1);
    if (last && last[0] === blockNumber) last[1] = balance;
    else if (!last || last[1] !== balance) history.push([blockNumber, balance]);
    this.trxHistory.set(hex, history);
  }

  /** The TRX balance in sun, or undefined for an address that is no account (not activated). */
  trxBalance(address: string): bigint | undefined {
    return this.state.accounts.get(hexAddress(address))?.balance;
  }

  isAccount(address: string): boolean {
    return this.state.accounts.get(hexAddress(address)) !== undefined;
  }

  /** A chain parameter, as a passed proposal sets it: blocks from the next one charge it. */
  setChainParameter(name: FakeChainParameterName, value: number): void {
    this.parameters.set(name, value, this.head.timestamp);
  }

  chainParameter(name: FakeChainParameterName): number {
    return this.parameters.values[name];
  }

  /** Energy left to the account now (own stake and delegated to it, less what it used). */
  energyLeft(address: string): bigint {
    const account = this.state.accounts.get(hexAddress(address));
    return account ? this.state.accounts.energyLeft(account, this.head.timestamp) : 0n;
  }

  /** A TRC-20 balance balanceOf reports; mined transfer() broadcasts of the token move it. */
  setTokenBalance(contract: string, address: string, units: bigint): void {
    this.state.tokens.setToken(hexAddress(contract), hexAddress(address), units);
  }

  /**
   * What decimals() of the contract answers (6 until set); null makes the address one without a
   * contract, which java-tron refuses with CONTRACT_VALIDATE_ERROR.
   */
  setTokenDecimals(contract: string, decimals: number | null): void {
    this.decimals.set(hexAddress(contract), decimals);
  }

  tokenBalance(contract: string, address: string): bigint {
    return this.state.tokens.tokenOf(hexAddress(contract), hexAddress(address));
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
    const entries: TransactionEntry[] = [];
    for (const [txid, transaction] of this.pending) {
      if (isExpiredAt(transaction, timestamp)) continue;
      // A transaction the chain refuses by now (its TRX spent by an earlier one) is left out.
      const applied = this.applyTo(this.state.clone(), transaction, timestamp);
      if (applied instanceof FakeRefusal) continue;
      this.state = applied.state;
      entries.push(this.broadcastEntry(txid, transaction, number, timestamp, applied.outcome));
    }
    this.pending.clear();
    this.blocks.push(this.makeBlock(number, this.head.blockId, entries));
    for (const hex of this.trxHistory.keys()) this.recordTrx(hex, number);
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

  /** Applies a transaction to `state`; the refusal java-tron would answer, if it would. */
  private applyTo(
    state: FakeTronState,
    posted: Json,
    now: number,
  ): { state: FakeTronState; outcome: ExecutionOutcome } | FakeRefusal {
    try {
      const outcome = execute(state, posted, {
        parameters: this.parameters.values,
        now,
        hasContract: (contract) => this.decimals.get(contract) !== null,
      });
      return { state, outcome };
    } catch (error) {
      if (error instanceof FakeRefusal) return error;
      throw error;
    }
  }

  /** A broadcast transaction in a block, with what applying it gave (fees, logs, failure). */
  private broadcastEntry(
    txid: string,
    posted: Json,
    blockNumber: number,
    blockTimestamp: number,
    outcome: ExecutionOutcome,
  ): TransactionEntry {
    const transaction: BlockTransaction = {
      ret: [{ contractRet: outcome.contractRet }],
      signature: Array.isArray(posted.signature) ? posted.signature.map(String) : [],
      txID: txid,
      raw_data: posted.raw_data,
      raw_data_hex:
        typeof posted.raw_data_hex === 'string'
          ? posted.raw_data_hex
          : encode(posted.raw_data).raw_data_hex,
    };
    const { fee, ...rest } = outcome.info;
    const info = {
      id: txid,
      ...(fee !== undefined ? { fee } : {}),
      blockNumber,
      blockTimeStamp: blockTimestamp,
      ...rest,
    };
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
    const held = this.holds.get(url.pathname);
    if (held) {
      held.reach();
      await held.released;
    }
    if (this.outage === 'hang') return;
    if (this.outage === 'unavailable' || this.unavailablePaths.has(url.pathname)) {
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
    // GetBlockServlet without id_or_num: the head; tronweb reads its reference block here.
    '/wallet/getblock': (params) => blockJson(this.head, params.detail === true),
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
    '/wallet/gettransactioninfobyid': (params) =>
      this.transactionInfo(params.value, this.headBlockNumber),
    // The solidity API: only a transaction in an irreversible block (tronweb's getTransactionInfo).
    '/walletsolidity/gettransactioninfobyid': (params) =>
      this.transactionInfo(params.value, this.headBlockNumber - this.solidLag),
    // GetTransactionByIdServlet: on-chain or pending, {} otherwise.
    '/wallet/gettransactionbyid': (params) => {
      const id = String(params.value ?? '').toLowerCase();
      const pending = this.pending.get(id);
      if (pending) return pendingTransactionJson(id, pending);
      return this.minedTransaction(id) ?? {};
    },
    // GetAccountServlet: {} for an address that is no account; zero values are left out.
    '/wallet/getaccount': (params) =>
      this.state.accounts.accountJson(addressParameter(params.address), this.head.timestamp),
    // The solidity API answers the same state: the fake keeps no state per block.
    '/walletsolidity/getaccount': (params) => {
      const hex = addressParameter(params.address);
      const json = this.state.accounts.accountJson(hex, this.head.timestamp);
      const stale = this.staleSolidTrx.get(TronWeb.address.fromHex(hex));
      return stale === undefined ? json : { ...json, balance: Number(stale) };
    },
    // AccountBalance (storage.balance.history.lookup): an account's TRX at a block named by
    // number and hash, with that block. Accounts without a history (never given TRX by the
    // test) answer their balance now.
    '/wallet/getaccountbalance': (params) => {
      const account = isJson(params.account_identifier) ? params.account_identifier : {};
      const named = isJson(params.block_identifier) ? params.block_identifier : {};
      const number = Number(named.number);
      const block = Number.isSafeInteger(number) ? this.blocks[number] : undefined;
      if (!block || block.blockId !== String(named.hash)) {
        throw new Error('block_identifier not found');
      }
      const hex = addressParameter(account.address);
      const history = this.trxHistory.get(hex);
      const balance = history
        ? (history.filter(([at]) => at <= number).at(-1)?.[1] ?? 0n)
        : (this.state.accounts.get(hex)?.balance ?? 0n);
      return { balance: Number(balance), block_identifier: { hash: block.blockId, number } };
    },
    '/wallet/getaccountresource': (params) =>
      this.state.accounts.accountResourceJson(
        addressParameter(params.address),
        this.head.timestamp,
        this.parameters.values.getFreeNetLimit,
      ),
    '/wallet/getdelegatedresourcev2': (params) =>
      this.state.accounts.delegatedResourceJson(
        addressParameter(params.fromAddress),
        addressParameter(params.toAddress),
      ),
    '/walletsolidity/getdelegatedresourcev2': (params) =>
      this.state.accounts.delegatedResourceJson(
        addressParameter(params.fromAddress),
        addressParameter(params.toAddress),
      ),
    '/wallet/getchainparameters': () => this.parameters.chainParametersJson(),
    '/wallet/getenergyprices': () => this.parameters.energyPricesJson(),
    '/wallet/getbandwidthprices': () => this.parameters.bandwidthPricesJson(),
    '/wallet/triggersmartcontract': (params) => this.trigger(params),
    '/wallet/triggerconstantcontract': (params) => this.constantCall(params),
    // The solidity API's constant call: the same state (the fake keeps no state per block).
    '/walletsolidity/triggerconstantcontract': (params) => this.constantCall(params),
    '/wallet/broadcasttransaction': (params) => this.broadcast(params),
  };

  /** GetTransactionInfoByIdServlet: {} for an id no block up to `lastBlock` holds. */
  private transactionInfo(id: unknown, lastBlock: number): Json {
    if (typeof id !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(id)) {
      throw new Error(`invalid hex value: ${JSON.stringify(id)}`);
    }
    const wanted = id.toLowerCase();
    for (const block of this.blocks.slice(0, Math.max(0, lastBlock + 1))) {
      const info = block.infos.find((candidate) => candidate.id === wanted);
      if (info) return info;
    }
    return {};
  }

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
    if (selector === TRANSFER_SELECTOR) return this.transferSimulation(params, parameter);
    if (selector !== BALANCE_OF_SELECTOR || !/^0{24}[0-9a-f]{40}$/.test(parameter)) {
      return {
        result: {
          code: 'CONTRACT_VALIDATE_ERROR',
          message: utf8Hex('fake node: only balanceOf(address) is supported'),
        },
      };
    }
    const contract = String(params.contract_address ?? '').toLowerCase();
    const balance = this.state.tokens.tokenOf(contract, `41${parameter.slice(24)}`);
    return {
      result: { result: true },
      energy_used: 1_953,
      constant_result: [word(balance.toString(16))],
    };
  }

  /**
   * transfer(address,uint256) run without a transaction (how wallets estimate energy): the energy
   * a transaction would use, whatever the owner's resources (an address that is no account
   * too). A transfer the sender cannot make reverts: `ret` FAILED, the message in `result`.
   */
  private transferSimulation(params: Json, parameter: string): unknown {
    const contract = String(params.contract_address ?? '').toLowerCase();
    if (this.decimals.get(contract) === null) {
      return {
        result: {
          code: 'CONTRACT_VALIDATE_ERROR',
          message: utf8Hex('Smart contract is not exist.'),
        },
      };
    }
    const owner = String(params.owner_address ?? '').toLowerCase();
    const call = callEnergy(this.state.tokens, contract, owner, TRANSFER_SELECTOR + parameter);
    if (call.failure) {
      return {
        result: { result: true, message: utf8Hex(FAILURE_MESSAGES.REVERT) },
        energy_used: Number(call.needed),
        constant_result: [''],
        transaction: { ret: [{ ret: 'FAILED' }] },
      };
    }
    return {
      result: { result: true },
      energy_used: Number(call.needed),
      constant_result: [word('1')],
      transaction: { ret: [{}] },
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
    const refusal = this.dryRun(transaction);
    if (refusal) return refuse(refusal.code, refusal.message);
    this.broadcasts.push({ txid, transaction });
    this.pending.set(txid, transaction);
    return { result: true, txid };
  }

  /**
   * Wallet.broadcastTransaction runs the transaction on the node's pending state (the head's
   * state with the transactions it took since applied in order): what that refuses is refused.
   */
  private dryRun(transaction: Json): FakeRefusal | undefined {
    const now = this.head.timestamp;
    let state = this.state;
    for (const earlier of this.pending.values()) {
      const applied = this.applyTo(state.clone(), earlier, now);
      if (!(applied instanceof FakeRefusal)) state = applied.state;
    }
    const applied = this.applyTo(state.clone(), transaction, now);
    return applied instanceof FakeRefusal ? applied : undefined;
  }
}

function addressParameter(value: unknown): string {
  return String(value ?? '').toLowerCase();
}

function blockNumberParameter(params: Json): number {
  const number = Number(params.num ?? 0);
  if (!Number.isSafeInteger(number)) throw new Error(`For input string: "${String(params.num)}"`);
  return number;
}

function ownerOf(rawData: unknown): string {
  return addressField(firstContract(rawData).value, 'owner_address');
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
