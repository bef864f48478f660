import { DetectionState } from '@app/deposits/networks-status/watcher-health';

/**
 * What the hosted checkout page knows of a session: the JSON of `GET /checkout/<id>/state`, of each
 * `session` event on `/checkout/<id>/stream`, and of the page's embedded initial state. Public by
 * id alone, so it carries only what a payer needs (no merchant id, fees or references).
 */
export interface PublicSessionView {
  id: string;
  status: 'Pending' | 'Paid' | 'Underpaid' | 'Expired';
  /** Token amount to pay, decimal string. */
  amount: string;
  /** Confirmed so far. */
  amount_received: string;
  /** Confirmed plus still-confirming transfers. */
  amount_seen: string;
  /** max(0, amount - amount_seen). */
  amount_due: string;
  /** 'USDT' | 'USDC'. */
  currency: string;
  /** Registry name, e.g. 'ETHEREUM'. */
  network: string;
  /** Display name, e.g. 'Ethereum'. */
  network_name: string;
  chain_family: 'EVM' | 'TRON';
  chain_id: number;
  token_contract: string;
  token_decimals: number;
  pay_address: string;
  /** EIP-681 for amount_due (or amount when nothing was seen); the bare address on TRON. */
  payment_uri: string;
  /** The fiat price: a detail, never the figure to type into a wallet. */
  pricing: { amount: string; currency: string };
  merchant_name: string;
  merchant_logo_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  /** ISO 8601. */
  expires_at: string;
  /** ISO 8601, to correct the client's clock for the countdown. */
  server_time: string;
  confirmations_required: number;
  /**
   * Deposit detection on the session's network (the watcher's health, docs/networks.md): when
   * 'delayed' or 'down' the page tells the payer that payments show late but are safe.
   */
  detection: DetectionState;
  transactions: Array<{
    tx_hash: string;
    amount: string;
    status: 'Pending' | 'Confirmed' | 'Reverted';
    confirmations: number;
  }>;
  /**
   * Whether a refund of this session waits for the customer's address (and the session was not
   * paid since it was requested): the page then carries the hidden refund form, which its script
   * opens only for the refund its link's fragment names, with that refund's secret. Which refund,
   * and its amounts, only the secret's holder learns (docs/refunds.md).
   */
  refund_waiting: boolean;
}
