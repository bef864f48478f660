import type { Client } from 'pg';
import type { Payer, Rpc } from '../kit/chain';
import type { RpcLog } from '../kit/rpc-log';

/** What every phase works with: the database, the devnet and the instruments. */
export interface BenchContext {
  db: Client;
  rpc: Rpc;
  /** The devnet's HTTP JSON-RPC URL (its WebSocket is the same port). */
  rpcUrl: string;
  payer: Payer;
  /** The devnet's USDT contract, checksummed (what sessions store and the watcher compares). */
  tokenContract: string;
  rpcLog: RpcLog;
  anvilPid: number | null;
  step: (message: string) => void;
}

// How often the benchmark looks at PostgreSQL for a status change: the resolution of every
// "until Paid" figure.
export const STATUS_POLL_MS = 10;
