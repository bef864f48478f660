import { Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { DataSource } from 'typeorm';
import { AuthenticatedMerchant } from '@app/auth';
import { LedgerAccounts } from '@app/ledger';
import { CreatePayoutDto } from '../dto/create-payout.dto';
import { PayoutTermsService } from '../payout-terms';
import { PayoutDestination } from '../rules/payout-destination';
import { PayoutQuoteDto } from './payout-quote.dto';

/**
 * What POST /v1/payouts would do with this body, computed by the creation's own checks and terms
 * and written nowhere: no payout, no hold, no event, no idempotency record.
 */
@Injectable()
export class PayoutQuoteService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly terms: PayoutTermsService,
    private readonly destination: PayoutDestination,
  ) {}

  async quote(
    merchant: AuthenticatedMerchant,
    input: CreatePayoutDto,
    subMerchantCode: string | undefined,
  ): Promise<PayoutQuoteDto> {
    const { subMerchant, network, amount } = await this.terms.checkRequest(
      merchant,
      input,
      subMerchantCode,
    );
    const inspection = await this.destination.inspect(network, input.to_address);
    const manager = this.dataSource.manager;
    const terms = await this.terms.terms(
      manager,
      merchant.merchantId,
      input,
      amount,
      inspection.address,
      true,
    );
    const account = LedgerAccounts.merchant(
      merchant.merchantId,
      subMerchant?.id ?? null,
      input.network,
      input.currency,
    );
    // Not locked: a quote promises nothing, the creation checks again under the lock.
    const rows: Array<{ balance: string }> = await manager.query(
      `SELECT balance FROM ledger_balances WHERE account = $1`,
      [account],
    );
    const available = rows.length ? new Decimal(rows[0].balance).negated() : new Decimal(0);
    return {
      amount: amount.toFixed(),
      fee: terms.fee.toFixed(),
      net_amount: terms.net.toFixed(),
      currency: input.currency,
      network: input.network,
      review_required: terms.reviewReasons.length > 0,
      review_reasons: terms.reviewReasons,
      destination: {
        address: inspection.address,
        valid: inspection.refusal === null,
        refusal: inspection.refusal?.message ?? null,
        checksum_ok: inspection.checksumOk,
        is_contract: inspection.isContract,
        first_payout_to_it: terms.firstPayoutToIt,
      },
      balance_after: available.minus(amount).toFixed(),
    };
  }
}
