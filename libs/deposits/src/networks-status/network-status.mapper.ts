import { CURRENCIES, NetworkConfig } from '@app/chains';
import { blockTimeMs } from '../poll-interval';
import { NetworkStatusDto } from './dto/network-status.dto';
import { lagBlocks, WatcherHealth } from './watcher-health';
import { WatcherStatusRecord } from './watcher-status.repository';

/** One network of the registry with its watcher's report, as GET /v1/networks shows it. */
export function toNetworkStatusDto(
  network: NetworkConfig,
  facts: {
    livemode: boolean;
    watched: boolean;
    status: WatcherStatusRecord | null;
    health: WatcherHealth;
  },
): NetworkStatusDto {
  const { status } = facts;
  const blockTime = blockTimeMs(network);
  return {
    name: network.name,
    display_name: network.displayName,
    chain_family: network.chainFamily,
    chain_id: network.chainFamily === 'EVM' ? network.chainId : null,
    livemode: facts.livemode,
    // In the order of CURRENCIES, whatever order a NETWORKS_FILE listed them in.
    tokens: CURRENCIES.flatMap((currency) => {
      const token = network.tokens[currency];
      return token ? [{ currency, contract: token.contract, decimals: token.decimals }] : [];
    }),
    confirmations: network.confirmations,
    average_block_time_seconds: blockTime === undefined ? null : blockTime / 1000,
    watched: facts.watched,
    watcher: {
      health: facts.health,
      chain_head: status?.chainHead ?? null,
      scanned_block: status?.scannedBlock ?? null,
      lag_blocks: lagBlocks(status),
      last_success_at: status?.lastSuccessAt?.toISOString() ?? null,
      last_failure_at: status?.lastFailureAt?.toISOString() ?? null,
      last_error: status?.lastError ?? null,
      consecutive_failures: status?.consecutiveFailures ?? 0,
    },
  };
}
