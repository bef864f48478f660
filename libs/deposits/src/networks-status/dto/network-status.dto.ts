import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CHAIN_FAMILIES, CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { WATCHER_HEALTHS, WatcherHealth } from '../watcher-health';

@ApiSchema({ name: 'NetworkToken' })
export class NetworkTokenDto {
  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({
    description: 'Token contract on this network (0x address on EVM, base58 on TRON).',
    example: '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0',
  })
  contract: string;

  @ApiProperty({
    type: 'integer',
    description:
      "The token's own decimals: amounts on chain are whole multiples of 10^-decimals (18 for " +
      'USDT and USDC on BSC, 6 elsewhere).',
    example: 6,
  })
  decimals: number;
}

@ApiSchema({ name: 'NetworkWatcher' })
export class NetworkWatcherDto {
  @ApiProperty({
    enum: WATCHER_HEALTHS,
    description:
      'Deposit detection on this network, judged when you ask (docs/networks.md, "Health"); the ' +
      "first rule that holds wins. `not_watched`: not in this deployment's `WATCH_NETWORKS`. " +
      '`down`: no tick has ever succeeded, or ticks have been failing for more than ' +
      'max(2 min, 10 blocks) since the last success, or none succeeded for max(10 min, 50 blocks). ' +
      '`delayed`: no tick succeeded for max(1 min, 5 blocks), or the last 3+ ticks failed, or ' +
      '`lag_blocks` exceeds `confirmations` + 10. `operational`: otherwise. Payments are never ' +
      'lost while detection is delayed or down: they are found when it catches up.',
    example: 'operational',
  })
  health: WatcherHealth;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The chain's head block as the watcher last saw it; null before its first tick.",
    example: 8123456,
  })
  chain_head: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The block the watcher has scanned up to (transfers up to here are detected); null before ' +
      'its first tick.',
    example: 8123456,
  })
  scanned_block: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      '`chain_head` - `scanned_block`: 0 when the watcher is caught up, more while it catches up ' +
      'after a pause. How fresh `chain_head` is shows in `last_success_at`.',
    example: 0,
  })
  lag_blocks: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'When a tick last succeeded (ISO 8601, UTC), or null.',
    example: '2026-11-22T10:15:03.120Z',
  })
  last_success_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description:
      'When a tick last failed on the RPC (ISO 8601, UTC), or null. Kept after recovery: ' +
      'compare with `last_success_at`.',
    example: '2026-11-22T09:58:41.004Z',
  })
  last_failure_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the last failed tick failed, at most 200 characters, with URLs and anything key-like ' +
      'removed; or null.',
    example: 'eth_blockNumber: node unreachable (ECONNREFUSED)',
  })
  last_error: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'Ticks failed in a row since the last success (0 when the last one succeeded).',
    example: 0,
  })
  consecutive_failures: number;
}

@ApiSchema({ name: 'NetworkStatus' })
export class NetworkStatusDto {
  @ApiProperty({
    enum: NETWORK_NAMES,
    description: 'The name to use as `network` in sessions and payouts.',
    example: 'ETHEREUM',
  })
  name: string;

  @ApiProperty({
    description: 'The concrete chain behind the name in this environment.',
    example: 'Ethereum Sepolia',
  })
  display_name: string;

  @ApiProperty({
    enum: CHAIN_FAMILIES,
    description: 'Address and transaction format: `EVM` or `TRON`.',
    example: 'EVM',
  })
  chain_family: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'EIP-155 chain id of an EVM network; null on TRON.',
    example: 11155111,
  })
  chain_id: number | null;

  @ApiProperty({
    description:
      'false in the sandbox (test networks: Sepolia, Nile, ...), true in production (mainnets). ' +
      'The same network names are used in both.',
    example: false,
  })
  livemode: boolean;

  @ApiProperty({
    type: [NetworkTokenDto],
    description:
      'The tokens you can be paid in on this network; a currency missing here is unsupported.',
  })
  tokens: NetworkTokenDto[];

  @ApiProperty({
    type: 'integer',
    description:
      "Blocks, the transfer's own included, before a transfer counts toward `amount_received`.",
    example: 12,
  })
  confirmations: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "The chain's average block time in seconds, or null when unknown (a private devnet).",
    example: 12,
  })
  average_block_time_seconds: number | null;

  @ApiProperty({
    description:
      "Whether this deployment's deposit watcher follows the network (`WATCH_NETWORKS`). Sessions " +
      'on a network not watched are not detected.',
    example: true,
  })
  watched: boolean;

  @ApiProperty({
    type: NetworkWatcherDto,
    description: 'What the deposit watcher last reported on this network, and its health.',
  })
  watcher: NetworkWatcherDto;
}
