import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { LedgerAccounts, LedgerService } from '@app/ledger';
import type { TestApi, TestMerchant } from './test-app';

/**
 * Credits a merchant's balance as a confirmed deposit would (debit deposits, credit the merchant),
 * for API tests that need funds without paying a session on a chain. The payout processor tests
 * fund balances with real deposits instead.
 */
export async function creditBalance(
  dataSource: DataSource,
  input: {
    merchantId: string;
    subMerchantId?: string | null;
    network: string;
    currency: string;
    amount: string;
  },
): Promise<void> {
  const amount = new Decimal(input.amount);
  const token = { currency: input.currency, network: input.network };
  await dataSource.transaction((manager) =>
    new LedgerService(dataSource).post(manager, {
      reference: `test_credit:${randomUUID()}`,
      kind: 'deposit',
      lines: [
        { account: LedgerAccounts.deposits(input.network, input.currency), amount, ...token },
        {
          account: LedgerAccounts.merchant(
            input.merchantId,
            input.subMerchantId ?? null,
            input.network,
            input.currency,
          ),
          amount: amount.negated(),
          ...token,
          merchantId: input.merchantId,
          subMerchantId: input.subMerchantId ?? null,
        },
      ],
    }),
  );
}

/** A new merchant whose balance holds `amount` of one token of one network, ready to pay out. */
export async function creditedMerchant(
  api: TestApi,
  balance: { network: string; currency: string; amount: string },
): Promise<TestMerchant> {
  const merchant = await api.createMerchant();
  await creditBalance(api.dataSource, { merchantId: merchant.id, ...balance });
  return merchant;
}
