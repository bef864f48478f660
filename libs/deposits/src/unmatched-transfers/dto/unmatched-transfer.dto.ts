import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CURRENCIES, NETWORK_NAMES } from '@app/chains';
import {
  UNMATCHED_REASONS,
  UNMATCHED_STATUSES,
  UnmatchedReason,
  UnmatchedStatus,
} from '../unmatched-transfer';

/** A payment to one of your sessions' addresses that the session did not take. */
@ApiSchema({ name: 'UnmatchedTransfer' })
export class UnmatchedTransferDto {
  @ApiProperty({
    description: 'Unmatched transfer id, `utx_` + 22 characters.',
    example: 'utx_5Rk2Wq8NvC1mZt7LpX3bYd',
  })
  id: string;

  @ApiProperty({
    enum: UNMATCHED_REASONS,
    description:
      "Why it was not credited. `wrong_network`: sent on another network than the session's (EVM " +
      "addresses are the same on every EVM network). `wrong_token`: the session's network, the " +
      'other stablecoin. `session_already_paid`: the session was already `Paid` when it arrived ' +
      '(a second payment). `session_refunded`: the session had a refund (not `Failed` or ' +
      '`Canceled`) when it arrived: a refund is decided on what the session had received, so ' +
      'nothing more is credited to it. (`unknown_address`, a pool address without a session, is never ' +
      'listed: no merchant owns it.) None of them is in your balance: refund the sender or settle ' +
      'it with us.',
    example: 'wrong_network',
  })
  reason: UnmatchedReason;

  @ApiProperty({
    enum: UNMATCHED_STATUSES,
    description:
      '`detected`: on the chain as far as we know. `reverted`: its block was replaced by a reorg; ' +
      'it becomes `detected` again if it is mined again.',
    example: 'detected',
  })
  status: UnmatchedStatus;

  @ApiProperty({ description: 'false in the sandbox, true in production.', example: false })
  livemode: boolean;

  @ApiProperty({
    description: 'The checkout session whose pay address received the transfer.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  session_id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The session's sub-merchant (PSP accounts), or null.",
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({
    enum: NETWORK_NAMES,
    description: "The network the transfer happened on (not necessarily the session's).",
    example: 'BSC',
  })
  network: string;

  @ApiProperty({ enum: CURRENCIES, description: 'The token that was sent.', example: 'USDT' })
  currency: string;

  @ApiProperty({
    description: 'Contract of the token that was sent, on `network`.',
    example: '0x55d398326f99059fF775485246999027B3197955',
  })
  currency_contract: string;

  @ApiProperty({
    description: 'Amount transferred in whole tokens, decimal string.',
    example: '49.99',
  })
  amount: string;

  @ApiProperty({
    description: 'Sender (checksummed 0x on EVM, base58 on TRON): where a refund would go.',
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  })
  from_address: string;

  @ApiProperty({
    description: "Receiving address: the session's `pay_address`.",
    example: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  })
  to_address: string;

  @ApiProperty({
    description: 'Transaction hash on `network`.',
    example: '0x5c7f1b3a0e9d4c2b8a6f4e2d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b',
  })
  tx_hash: string;

  @ApiProperty({
    type: 'integer',
    description:
      'Position of the transfer in its block (EVM) or transaction (TRON); with `tx_hash` it ' +
      'identifies the transfer.',
    example: 3,
  })
  log_index: number;

  @ApiProperty({
    type: 'integer',
    description: 'Block the transfer was mined in.',
    example: 44120311,
  })
  block_number: number;

  @ApiProperty({
    description: 'When the transfer was first seen (ISO 8601, UTC).',
    example: '2026-11-22T10:15:03.000Z',
  })
  created_at: string;
}
