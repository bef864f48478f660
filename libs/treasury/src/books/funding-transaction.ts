/** One movement of value in a transaction: a token Transfer log, or the native coin it carries. */
export interface MovedValue {
  /** The log's index in its block (EVM) or in its transaction's info (TRON), or `native`. */
  position: number | 'native';
  /** Registry format: checksummed 0x on EVM, base58 T... on TRON. */
  from: string;
  to: string;
  currency: string;
  decimals: number;
  amountBaseUnits: bigint;
}

/** What the chain says of a transaction an operator asks to book. */
export type FundingTransaction =
  | { state: 'unknown' }
  | { state: 'pending' }
  | {
      state: 'mined';
      succeeded: boolean;
      block: number;
      /** head - block + 1, the head read after the transaction. */
      confirmations: number;
      /** The sender, who paid the fee. */
      from: string;
      feeBaseUnits: bigint;
      /** Transfers of the network's watched tokens and the native value, in log order. */
      moves: MovedValue[];
    };

/** Reads one transaction of one network with its receipt (EVM) or info (TRON). */
export interface FundingTransactionReader {
  read(txHash: string): Promise<FundingTransaction>;
  close(): Promise<void>;
}
