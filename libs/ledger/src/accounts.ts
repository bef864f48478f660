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
  /** Tokens that left the hot wallet to payout recipients (asset, credited as it goes out). */
  payoutsSent: (network: string, currency: string) => `payouts_sent:${network}:${currency}`,
  /** Fees the service earned (revenue). */
  fees: (network: string, currency: string) => `fees:${network}:${currency}`,
};

/** The kinds of account a merchant's balance is made of (see ledger_balances.kind). */
export const MERCHANT_ACCOUNT_KINDS = { available: 'merchant', held: 'merchant_held' } as const;
