import { Injectable } from '@nestjs/common';
import { AuthenticatedMerchant } from '@app/auth';
import { formatAmount } from '@app/common';
import { LedgerService, MerchantBalance } from '@app/ledger';
import { SubMerchantScope, SubMerchantsService } from '@app/sub-merchants';
import { BalanceDto } from './dto/balance.dto';
import { ListBalancesQueryDto } from './dto/list-balances-query.dto';

/** Merchant balances read from the ledger, per network, currency and sub-merchant. */
@Injectable()
export class BalancesService {
  constructor(
    private readonly ledger: LedgerService,
    private readonly subMerchants: SubMerchantsService,
  ) {}

  async list(merchant: AuthenticatedMerchant, query: ListBalancesQueryDto): Promise<BalanceDto[]> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const balances = (await this.ledger.merchantBalances(merchant.merchantId)).filter(
      (balance) =>
        inScope(balance, scope) &&
        (!query.network || balance.network === query.network) &&
        (!query.currency || balance.currency === query.currency),
    );
    const codes = await this.subMerchants.codesByIds(
      merchant,
      balances.flatMap((balance) => (balance.subMerchantId ? [balance.subMerchantId] : [])),
    );
    return balances.map((balance) => ({
      currency: balance.currency,
      network: balance.network,
      sub_merchant_code: balance.subMerchantId ? (codes.get(balance.subMerchantId) ?? null) : null,
      available: formatAmount(balance.available),
      held: formatAmount(balance.held),
    }));
  }
}

function inScope(balance: MerchantBalance, scope: SubMerchantScope): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'own') return balance.subMerchantId === null;
  return balance.subMerchantId === scope.subMerchantId;
}
