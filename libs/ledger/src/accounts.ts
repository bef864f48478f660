/**
 * Account names. Assets are debit-normal (deposits), liabilities and revenue credit-normal
 * (merchant balances, fees). Names embed network and currency so no account ever mixes tokens.
 */
export const LedgerAccounts = {
  /** Tokens received on pay addresses, held for merchants (asset). */
  deposits: (network: string, currency: string) => `deposits:${network}:${currency}`,
  /** What the service owes a merchant or one of its sub-merchants (liability). */
  merchant: (merchantId: string, subMerchantId: string | null, network: string, currency: string) =>
    `merchant:${merchantId}:${subMerchantId ?? '-'}:${network}:${currency}`,
  /** Fees the service earned (revenue). */
  fees: (network: string, currency: string) => `fees:${network}:${currency}`,
};
