import { getAddress, id, Interface, toQuantity } from 'ethers';
import { ChainError, NetworkConfig } from '@app/chains';
import { receiptFeeWei } from '@app/chains/adapters/evm/evm-receipt-fee';
import { requireWholeFee, wholeReceiptOr } from '@app/chains/adapters/evm/receipts-without-fee';
import { SweepReceiptLog } from '@app/chains/sweeps/evm-sweep-receipt';
import { SWEEP_DELEGATE_INTERFACE } from '@app/chains/contracts/contract-artifacts';
import type { DelegateImmutables } from './sweep-safety';
import { EvmRpc, noReceipt } from '@app/chains/adapters/evm/evm-rpc';
import { EvmMulticallBalances } from '../reconciliation/evm-multicall-balances';

// isBlackListed(address) (USDT) and isBlacklisted(address) (USDC): a token's own blacklist.
const IS_BLACK_LISTED = id('isBlackListed(address)').slice(0, 10);
const IS_BLACKLISTED = id('isBlacklisted(address)').slice(0, 10);

const PLAIN_TRANSFER_GAS = 21_000n;
const L2_GAS_MARGIN_PERCENT = 25n;

/** OP-stack rollups (NetworkConfig.opStack): the L1 data fee their sender pays is quoted here. */
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const GAS_PRICE_ORACLE_INTERFACE = new Interface([
  'function getL1Fee(bytes _data) view returns (uint256)',
]);
/** The L1 data fee moves with L1 prices between the quote and the block. */
const L1_FEE_MARGIN_PERCENT = 25n;

/** A mined sweep transaction, as one node's receipt and head tell it. */
export interface SweepReceipt {
  succeeded: boolean;
  blockNumber: number;
  /** Lowercase; recorded with the fee booked from the receipt (network_fee_receipts). */
  blockHash: string;
  confirmations: number;
  logs: SweepReceiptLog[];
  /** What the sweeper paid, in wei (L1 data fee included); null when the receipt lacks it. */
  feeWei: bigint | null;
}

/**
 * The chain reads a sweep needs beyond the payout transport's (which broadcasts, looks up and
 * proves nonces): delegation codes, authority nonces, token balances in bulk, full receipts.
 * Same RPC behaviour (retries, failover) as every other EVM read.
 */
export class EvmSweepChain {
  private readonly rpc: EvmRpc;
  private readonly balances: EvmMulticallBalances;

  constructor(readonly network: NetworkConfig) {
    this.rpc = new EvmRpc(network);
    this.balances = new EvmMulticallBalances(network, this.rpc);
  }

  /**
   * Token balances in base units at one block, through Multicall3 (the reader reconciliation uses
   * too: 500 addresses an eth_call, several at once), keyed by the addresses as given.
   */
  async tokenBalances(
    token: string,
    addresses: readonly string[],
    blockTag: number | 'latest' = 'latest',
  ): Promise<Map<string, bigint>> {
    return this.balances.tokenBalances(token, addresses, blockTag);
  }

  /** eth_getCode of each address (the 23-byte designator once delegated), read concurrently. */
  async codes(addresses: readonly string[]): Promise<Map<string, string>> {
    const entries = await Promise.all(
      addresses.map(async (address) => {
        const code = await this.rpc.call('eth_getCode', (provider) =>
          provider.send('eth_getCode', [address, 'latest']),
        );
        return [address, String(code).toLowerCase()] as const;
      }),
    );
    return new Map(entries);
  }

  /** Each address's mined transaction count: the nonce its next authorization must carry. */
  async nonces(addresses: readonly string[]): Promise<Map<string, number>> {
    const entries = await Promise.all(
      addresses.map(async (address) => {
        const count = await this.rpc.call('eth_getTransactionCount', (provider) =>
          provider.getTransactionCount(address, 'latest'),
        );
        return [address, count] as const;
      }),
    );
    return new Map(entries);
  }

  /**
   * The gas limit of a plain native transfer (no data), from the node's own estimate: exactly
   * 21,000 on a chain that charges nothing else; more on an L2 that counts its L1 data in L2 gas
   * (Arbitrum), where a 21,000 limit is refused as "intrinsic gas too low". The L1 part moves
   * with L1 prices between the estimate and the block, hence the margin (unused gas is not paid).
   */
  async plainTransferGas(from: string, to: string, value: bigint): Promise<bigint> {
    const answer = await this.rpc.call('eth_estimateGas', (provider) =>
      provider.send('eth_estimateGas', [{ from, to, value: toQuantity(value) }, 'latest']),
    );
    const estimate = BigInt(answer as string);
    if (estimate <= PLAIN_TRANSFER_GAS) return PLAIN_TRANSFER_GAS;
    return estimate + (estimate * L2_GAS_MARGIN_PERCENT + 99n) / 100n;
  }

  /**
   * The L1 data fee (wei) a transaction of these signed bytes may pay: the GasPriceOracle's
   * quote plus a margin on an OP-stack network (`opStack` in its configuration, or any chain with
   * the oracle predeployed), 0 elsewhere. Never 0 for want of an answer: a failed or empty read throws.
   */
  async l1DataFee(rawTransaction: string): Promise<bigint> {
    const opStack =
      this.network.opStack === true ||
      (await this.codes([GAS_PRICE_ORACLE])).get(GAS_PRICE_ORACLE) !== '0x';
    if (!opStack) return 0n;
    const data = GAS_PRICE_ORACLE_INTERFACE.encodeFunctionData('getL1Fee', [rawTransaction]);
    const answer = await this.rpc.call('eth_call', (provider) =>
      provider.send('eth_call', [{ to: GAS_PRICE_ORACLE, data }, 'latest']),
    );
    const [fee] = GAS_PRICE_ORACLE_INTERFACE.decodeFunctionResult('getL1Fee', String(answer));
    const quoted = BigInt(fee as bigint);
    return quoted + (quoted * L1_FEE_MARGIN_PERCENT + 99n) / 100n;
  }

  /** Native coin balance in wei. */
  async nativeBalance(address: string): Promise<bigint> {
    return this.rpc.call('eth_getBalance', (provider) => provider.getBalance(address, 'latest'));
  }

  /**
   * What a SweepDelegate fixed at deployment, or null when the address answers no such calls
   * (no code, another contract).
   */
  async delegateImmutables(delegate: string): Promise<DelegateImmutables | null> {
    const read = async (name: string) => {
      const data = SWEEP_DELEGATE_INTERFACE.encodeFunctionData(name, []);
      const answer = await this.rpc.call('eth_call', (provider) =>
        provider.send('eth_call', [{ to: delegate, data }, 'latest']),
      );
      return SWEEP_DELEGATE_INTERFACE.decodeFunctionResult(name, answer as string)[0] as unknown;
    };
    try {
      return {
        sweeper: String(await read('SWEEPER')),
        hotWallet: String(await read('HOT_WALLET')),
        treasury: String(await read('TREASURY')),
        tokens: [...((await read('whitelistedTokens')) as string[])].map(String),
      };
    } catch (error) {
      // The node failing is asked again; a revert or an empty answer is the delegate's own.
      if (error instanceof ChainError && error.kind === 'transient') throw error;
      return null;
    }
  }

  /**
   * The deposit addresses a token's own blacklist names: USDT's isBlackListed(address) or USDC's
   * isBlacklisted(address) reads true. A token with neither names none (lowercased addresses).
   */
  async blacklisted(token: string, addresses: readonly string[]): Promise<Set<string>> {
    const listed = new Set<string>();
    for (const address of addresses) {
      const word = address.slice(2).toLowerCase().padStart(64, '0');
      for (const selector of [IS_BLACK_LISTED, IS_BLACKLISTED]) {
        const answer = await this.rpc
          .call('eth_call', (provider) =>
            provider.send('eth_call', [{ to: token, data: `${selector}${word}` }, 'latest']),
          )
          .catch((error: unknown) => {
            if (error instanceof ChainError && error.kind === 'transient') throw error;
            return '0x'; // no such function: this token says nothing
          });
        if (typeof answer === 'string' && answer.length === 66 && BigInt(answer) === 1n) {
          listed.add(address.toLowerCase());
        }
      }
    }
    return listed;
  }

  /** The node's head block number. */
  async headBlock(): Promise<number> {
    return this.rpc.call('eth_blockNumber', (provider) => provider.getBlockNumber());
  }

  /** What gas costs now (eth_gasPrice: base fee plus a tip), for the policy only. */
  async gasPrice(): Promise<bigint> {
    const answer = await this.rpc.call('eth_gasPrice', (provider) =>
      provider.send('eth_gasPrice', []),
    );
    return BigInt(answer as string);
  }

  /** The receipt with its logs and fee, or null; receipt and head from the same node. */
  async receipt(txHash: string): Promise<SweepReceipt | null> {
    // One without its fee (an OP-stack l1Fee) is asked of the next URL; if none answers it
    // whole, it comes back with feeWei null, as before (the sweep's fee is read again later).
    return wholeReceiptOr(this.network.name, () => this.receiptOnce(txHash));
  }

  private async receiptOnce(txHash: string): Promise<SweepReceipt | null> {
    return this.rpc.callReceipt('eth_getTransactionReceipt', noReceipt, async (provider) => {
      const raw = (await provider.send('eth_getTransactionReceipt', [txHash])) as RawReceipt | null;
      if (!raw) return null;
      const head = await provider.getBlockNumber();
      const blockNumber = Number(BigInt(raw.blockNumber));
      if (head < blockNumber) return null;
      // The receipt's block must be the one this node has at that height now: a receipt of a
      // reorged-out block ends nothing (asked again next pass).
      const canonical = (await provider.send('eth_getBlockByNumber', [
        toQuantity(blockNumber),
        false,
      ])) as { hash: string } | null;
      if (!canonical || canonical.hash.toLowerCase() !== raw.blockHash.toLowerCase()) return null;
      const receipt: SweepReceipt = {
        succeeded: BigInt(raw.status) === 1n,
        blockNumber,
        blockHash: raw.blockHash.toLowerCase(),
        confirmations: head - blockNumber + 1,
        logs: raw.logs.map((log) => ({
          address: getAddress(log.address),
          topics: log.topics,
          data: log.data,
          index: Number(BigInt(log.logIndex)),
        })),
        feeWei: receiptFeeWei(raw, this.network),
      };
      requireWholeFee(raw, this.network, txHash, receipt);
      return receipt;
    });
  }

  close(): void {
    this.rpc.close();
  }
}

interface RawReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
}
