import { JsonRpcProvider } from 'ethers';
import { EvmRpc } from '../adapters/evm/evm-rpc';
import { NetworkConfig } from '../networks/network.types';
import { ChainError } from '../rpc/chain-error';
import { transferCall } from './evm-erc20-calls';
import { checkedAddress, isUnsupportedMethod } from './evm-payout-checks';
import { EvmFees, TokenTransferOrder } from './payout-transport';

// A tip of zero would stay zero after any percentage bump of a replacement.
const MIN_PRIORITY_FEE = 1n;
// Gas estimates are for the state now. A recipient whose balance is emptied before the transfer
// is mined (an exchange's deposit address, swept) costs about 17k gas more (a storage slot
// written from zero), more than a quarter of a 41k USDT transfer; a token upgrade costs more too.
// Unused gas is not paid: the limit only has to be covered by the wallet's native balance.
const GAS_MARGIN_PERCENT = 25n;
const MIN_GAS_MARGIN = 25_000n;

/** EthersPayoutTransport's fee suggestion and gas estimate for a transfer, read from the node. */
export class EvmFeeEstimates {
  constructor(
    private readonly network: NetworkConfig,
    private readonly rpc: EvmRpc,
  ) {}

  /** maxFeePerGas = 2 * base fee + tip: still valid after six full blocks of +12.5 % base fee. */
  async suggestFees(): Promise<EvmFees> {
    return this.rpc.call('eth_maxPriorityFeePerGas', async (provider) => {
      const block = await provider.getBlock('latest');
      const baseFee = block?.baseFeePerGas;
      if (baseFee === null || baseFee === undefined) {
        throw this.error('permanent', 'the latest block has no base fee (no EIP-1559)');
      }
      const suggested = await this.priorityFee(provider);
      const maxPriorityFeePerGas = suggested > MIN_PRIORITY_FEE ? suggested : MIN_PRIORITY_FEE;
      return { maxFeePerGas: 2n * baseFee + maxPriorityFeePerGas, maxPriorityFeePerGas };
    });
  }

  async estimateTransferGas(from: string, order: TokenTransferOrder): Promise<bigint> {
    const sender = checkedAddress(from, 'from', this.network.name);
    const { to, data } = transferCall(order, this.network.name);
    // Against the latest block, not the pending one nodes default to: a pending transfer to the
    // same recipient makes its balance non-zero there and the estimate 17k gas too low, should
    // that transfer be replaced or dropped.
    const estimate = await this.rpc.call('eth_estimateGas', async (provider) =>
      BigInt(
        (await provider.send('eth_estimateGas', [{ from: sender, to, data }, 'latest'])) as string,
      ),
    );
    const margin = (estimate * GAS_MARGIN_PERCENT + 99n) / 100n;
    return estimate + (margin > MIN_GAS_MARGIN ? margin : MIN_GAS_MARGIN);
  }

  /** The node's tip suggestion; nodes without eth_maxPriorityFeePerGas get ethers' fee data. */
  private async priorityFee(provider: JsonRpcProvider): Promise<bigint> {
    try {
      return BigInt((await provider.send('eth_maxPriorityFeePerGas', [])) as string);
    } catch (error) {
      if (!isUnsupportedMethod(error)) throw error;
      return (await provider.getFeeData()).maxPriorityFeePerGas ?? MIN_PRIORITY_FEE;
    }
  }

  private error(kind: 'transient' | 'permanent', message: string): ChainError {
    return new ChainError(kind, message, this.network.name);
  }
}
