import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, formatAmount, formatFixed } from '@app/common';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { PublicSessionRecord } from './checkout-session.entity';
import { CheckoutSessionDto } from './dto/checkout-session.dto';
import { RATE_FRACTION_DIGITS } from './pricing/pricing.service';

export const HOSTED_PAGE_PATH = '/checkout';

/** The merchant that owns the session, as the hosted page presents it. */
export interface SessionOwner {
  name: string;
  logoUrl: string | null;
}

/** The one place a session row becomes the public object of spec section 2.1. */
@Injectable()
export class CheckoutSessionMapper {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly networks: NetworkRegistry,
  ) {}

  hostedPageUrl(sessionId: string): string {
    return `${this.config.publicUrl}${HOSTED_PAGE_PATH}/${sessionId}`;
  }

  /**
   * A sub-merchant's session shows the sub-merchant's name, and its logo when it has one
   * (else the PSP's), because the customer is paying the sub-merchant.
   */
  toDto(row: PublicSessionRecord, owner: SessionOwner): CheckoutSessionDto {
    const subMerchantCode = row.sub_merchant_code ?? null;
    return {
      id: row.id,
      url: this.hostedPageUrl(row.id),
      status: row.status,
      livemode: row.livemode,
      amount: formatAmount(row.amount),
      amount_received: formatAmount(row.amount_received),
      fee_amount: formatAmount(row.fee_amount),
      net_amount: formatAmount(row.net_amount),
      currency: row.currency,
      network: row.network,
      chain_family: row.chain_family,
      currency_contract: row.currency_contract,
      pay_address: row.pay_address,
      detection_rpc_url: this.networks.get(row.network as NetworkName).publicRpcUrl,
      pricing: {
        amount: formatAmount(row.pricing_amount),
        currency: row.pricing_currency,
        exchange_rate: formatFixed(row.exchange_rate, RATE_FRACTION_DIGITS),
      },
      client_reference_id: row.client_reference_id,
      success_url: row.success_url,
      cancel_url: row.cancel_url,
      merchant_name: subMerchantCode ? (row.sub_merchant_name ?? owner.name) : owner.name,
      merchant_logo_url: (subMerchantCode && row.sub_merchant_logo_url) || owner.logoUrl,
      sub_merchant_code: subMerchantCode,
      created_at: new Date(row.created_at).toISOString(),
      expires_at: new Date(row.expires_at).toISOString(),
      transactions: row.transactions.map((transaction) => ({
        amount: formatAmount(transaction.amount),
        created_at: new Date(transaction.created_at).toISOString(),
        network: transaction.network,
        status: transaction.status,
        tx_hash: transaction.tx_hash,
      })),
    };
  }
}
