import { PublicSessionView } from '../public-session-view';

/** A Pending USDT session on Ethereum with nothing paid yet; override what a test needs. */
export function sessionView(changes: Partial<PublicSessionView> = {}): PublicSessionView {
  return {
    id: 'cs_4f8Qh2kT9xLmN3pR7sVw1Z',
    status: 'Pending',
    amount: '10.5',
    amount_received: '0',
    amount_seen: '0',
    amount_due: '10.5',
    currency: 'USDT',
    network: 'ETHEREUM',
    network_name: 'Ethereum',
    chain_family: 'EVM',
    chain_id: 1,
    token_contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    token_decimals: 6,
    pay_address: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf',
    payment_uri:
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=10500000',
    pricing: { amount: '9.75', currency: 'EUR' },
    merchant_name: 'Acme Coffee',
    merchant_logo_url: 'https://cdn.acme.example/logo.png',
    success_url: 'https://acme.example/thanks?order=42',
    cancel_url: 'https://acme.example/cart',
    expires_at: '2030-01-01T12:30:00.000Z',
    server_time: '2030-01-01T12:00:00.000Z',
    confirmations_required: 12,
    detection: 'operational',
    transactions: [],
    refund_waiting: false,
    ...changes,
  };
}
