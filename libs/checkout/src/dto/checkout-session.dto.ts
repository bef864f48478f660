import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CHAIN_FAMILIES, CURRENCIES, NETWORK_NAMES } from '@app/chains';
import { SESSION_STATUSES, SessionStatus } from '../checkout-session.entity';
import { SESSION_TRANSACTION_STATUSES } from '../session-transaction.entity';

@ApiSchema({ name: 'SessionTransaction' })
export class SessionTransactionDto {
  @ApiProperty({ description: 'Amount transferred, decimal string.', example: '49.99' })
  amount: string;

  @ApiProperty({
    description: 'When the transfer was first seen (ISO 8601, UTC).',
    example: '2026-11-22T10:15:03.000Z',
  })
  created_at: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    enum: SESSION_TRANSACTION_STATUSES,
    description:
      '`Pending`: seen, not yet enough confirmations. `Confirmed`: counted. `Reverted`: dropped by a reorg.',
    example: 'Confirmed',
  })
  status: string;

  @ApiProperty({
    description: 'Transaction hash on the network.',
    example: '5c7f1b3a0e9d4c2b8a6f4e2d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b',
  })
  tx_hash: string;
}

@ApiSchema({ name: 'SessionPricing' })
export class SessionPricingDto {
  @ApiProperty({ description: 'Price in the pricing currency, as requested.', example: '49.99' })
  amount: string;

  @ApiProperty({ description: 'Pricing currency code.', example: 'USD' })
  currency: string;

  @ApiProperty({
    description:
      'Settlement-currency units per one unit of the pricing currency, 8 fractional digits.',
    example: '1.00000000',
  })
  exchange_rate: string;
}

@ApiSchema({ name: 'CheckoutSession' })
export class CheckoutSessionDto {
  @ApiProperty({
    description: 'Session id, `cs_` + 22 characters.',
    example: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
  })
  id: string;

  @ApiProperty({
    description: 'Hosted checkout page: redirect the customer here.',
    example: 'https://pay.example.com/checkout/cs_3kTMd9Q2xLp8RvB1nY7cZa',
    format: 'uri',
  })
  url: string;

  @ApiProperty({
    enum: SESSION_STATUSES,
    description:
      '`Pending`: awaiting (more) payment. `Paid`: confirmed amount reached. `Underpaid`: expired with a ' +
      'partial payment. `Expired`: expired with nothing received. A late full payment still makes it `Paid`.',
    example: 'Pending',
  })
  status: SessionStatus;

  @ApiProperty({ description: 'false in the sandbox, true in production.', example: false })
  livemode: boolean;

  @ApiProperty({ description: 'Amount to pay in `currency`, decimal string.', example: '49.99' })
  amount: string;

  @ApiProperty({
    description: 'Confirmed amount received so far (may exceed `amount`).',
    example: '0',
  })
  amount_received: string;

  @ApiProperty({
    description: 'Service fee on the amount received; "0" until a payment is confirmed.',
    example: '0',
  })
  fee_amount: string;

  @ApiProperty({
    description: 'amount_received - fee_amount: what your balance is credited.',
    example: '0',
  })
  net_amount: string;

  @ApiProperty({ enum: CURRENCIES, example: 'USDT' })
  currency: string;

  @ApiProperty({ enum: NETWORK_NAMES, example: 'TRON' })
  network: string;

  @ApiProperty({
    enum: CHAIN_FAMILIES,
    description: 'Address and transaction format: `EVM` or `TRON`.',
    example: 'TRON',
  })
  chain_family: string;

  @ApiProperty({
    description: 'Token contract the customer must send (0x address on EVM, base58 on TRON).',
    example: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  })
  currency_contract: string;

  @ApiProperty({
    description: 'Fresh address for this session only: the customer sends the token here.',
    example: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  })
  pay_address: string;

  @ApiProperty({
    description:
      'A public RPC endpoint of the network, for wallets that watch the payment themselves.',
    example: 'https://nile.trongrid.io',
    format: 'uri',
  })
  detection_rpc_url: string;

  @ApiProperty({ type: SessionPricingDto })
  pricing: SessionPricingDto;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Your reference, or null.',
    example: 'order_1042',
  })
  client_reference_id: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    example: 'https://shop.example.com/orders/1042/thanks',
  })
  success_url: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    example: 'https://shop.example.com/cart',
  })
  cancel_url: string | null;

  @ApiProperty({ description: 'Name shown on the hosted page.', example: 'Acme Shop' })
  merchant_name: string;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    description: 'Logo shown on the hosted page, or null.',
    example: 'https://shop.example.com/logo.png',
  })
  merchant_logo_url: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Sub-merchant the session belongs to (PSP accounts), or null.',
    example: null,
  })
  sub_merchant_code: string | null;

  @ApiProperty({ description: 'ISO 8601, UTC.', example: '2026-11-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({
    description: 'ISO 8601, UTC. Payments after this are still recorded and credited.',
    example: '2026-11-22T11:00:00.000Z',
  })
  expires_at: string;

  @ApiProperty({
    type: [SessionTransactionDto],
    description: 'Transfers detected for this session, in chain order.',
  })
  transactions: SessionTransactionDto[];
}
