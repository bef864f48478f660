/**
 * Account names. Assets are debit-normal (deposits, tokens paid out), liabilities and revenue
 * credit-normal (merchant balances, fees). Names embed network and currency so no account ever
 * mixes tokens; the part before the first ':' is the account's kind.
 */
export const LedgerAccounts = {
  /** Tokens received on pay addresses, held for merchants (asset). */
  deposits: (network: string, currency: string) => `deposits:${network}:${currency}`,
  /** What the service owes a merchant or one of its sub-merchants and it may pay out (liability). */
  merchant: (merchantId: string, subMerchantId: string | null, network: string, currency: string) =>
    `merchant:${merchantId}:${subMerchantId ?? '-'}:${network}:${currency}`,
  /** A merchant's funds reserved for payouts that are not finished yet (liability). */
  merchantHeld: (
    merchantId: string,
    subMerchantId: string | null,
    network: string,
    currency: string,
  ) => `merchant_held:${merchantId}:${subMerchantId ?? '-'}:${network}:${currency}`,
  /** Fees the service earned (revenue). */
  fees: (network: string, currency: string) => `fees:${network}:${currency}`,

  // Where the service's own holdings are (docs/treasury.md). `currency` is a token (USDT, USDC)
  // or the network's native coin (ETH, BNB, POL, TRX: see NATIVE_COINS), so gas is booked in the
  // coin it is paid in and never mixes with tokens.
  /** Tokens and native coin in the network's payout hot wallet (asset). */
  hotWallet: (network: string, currency: string) => `hot_wallet:${network}:${currency}`,
  /** Tokens swept past the hot wallet's target level to the cold treasury address (asset). */
  treasury: (network: string, currency: string) => `treasury:${network}:${currency}`,
  /** Native coin of the network's sweeper key, which pays every sweep's gas (asset). */
  sweeper: (network: string, coin: string) => `sweeper:${network}:${coin}`,
  /** TRX of the TRON staking account that lends energy to deposit addresses (asset). */
  staking: (network: string, coin: string) => `staking:${network}:${coin}`,
  /** Network fees (gas, energy, bandwidth, activation) the service paid: an expense (debit). */
  networkFees: (network: string, coin: string) => `network_fees:${network}:${coin}`,
  /**
   * Tokens of unmatched transfers (wrong network or token, a second payment, an address no session
   * has) that sit on our deposit addresses: owed back to their sender, never a merchant's balance
   * (liability). Refunds of unmatched transfers debit it.
   */
  unmatched: (network: string, currency: string) => `unmatched:${network}:${currency}`,
  /**
   * Unmatched transfers' money reserved for their refunds in flight (held from `unmatched` until
   * the refund completes, fails or is canceled): still owed to the sender, never a merchant's
   * held balance (liability).
   */
  refundHold: (network: string, currency: string) => `refund_hold:${network}:${currency}`,
  /**
   * Refunds sent for unmatched transfers a reorg then took off the chain: the money left the
   * service with nothing to cover it, a loss for an operator to review (expense). Undone if the
   * transfer is mined again or the refund fails.
   */
  refundLosses: (network: string, currency: string) => `refund_losses:${network}:${currency}`,
  /**
   * What the operator put into (credit) or took out of (debit) the addresses the service controls
   * from outside, each booked from its transaction hash: the equity side of funding.
   */
  ownerFunding: (network: string, currency: string) => `owner_funding:${network}:${currency}`,
};

/** The kinds of account a merchant's balance is made of (see ledger_balances.kind). */
export const MERCHANT_ACCOUNT_KINDS = { available: 'merchant', held: 'merchant_held' } as const;

/**
 * The order postings lock balance rows in: by the account name's bytes, as PostgreSQL's "C"
 * collation sorts (the ledger's SQL orders with COLLATE "C"). Never the database's default
 * collation: under en_US `merchant_held:` sorts before `merchant:`, and code that locks several
 * accounts itself (a batch's holds) would take them in another order than a posting does.
 */
export function compareAccounts(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
