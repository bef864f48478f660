import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import {
  APP_CONFIG,
  AppConfig,
  ApiException,
  ErrorCode,
  ID_PREFIX,
  newId,
  createdRange,
  PageInfo,
  PageRequest,
} from '@app/common';
import { NetworkRegistry } from '@app/chains';
import { AuthenticatedMerchant } from '@app/auth';
import { IdempotencyService, IdempotentRequest, IdempotentResult } from '@app/idempotency';
import { SubMerchantRef, SubMerchantsService } from '@app/sub-merchants';
import { PublicSessionRecord } from './checkout-session.entity';
import { CheckoutSessionMapper } from './checkout-session.mapper';
import {
  CheckoutSessionsRepository,
  newSessionRecord,
  NewSessionRow,
} from './checkout-sessions.repository';
import { CreateCheckoutSessionDto } from './dto/create-checkout-session.dto';
import { CheckoutSessionDto } from './dto/checkout-session.dto';
import { ListCheckoutSessionsQueryDto } from './dto/list-checkout-sessions-query.dto';
import { PayAddressPool } from './pay-addresses/pay-address-pool';
import { PricingService } from './pricing/pricing.service';
import { FeeRule } from './settlement/fee-rule';

export const CREATE_SESSION_ENDPOINT = 'POST /v1/checkout/sessions';

@Injectable()
export class CheckoutSessionsService {
  private readonly defaultFee: FeeRule;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly networks: NetworkRegistry,
    private readonly pricing: PricingService,
    private readonly pool: PayAddressPool,
    private readonly sessions: CheckoutSessionsRepository,
    private readonly idempotency: IdempotencyService,
    private readonly mapper: CheckoutSessionMapper,
    private readonly subMerchants: SubMerchantsService,
  ) {
    this.defaultFee = {
      percent: new Decimal(config.feePercent),
      fixed: new Decimal(config.feeFixed),
    };
  }

  async create(
    merchant: AuthenticatedMerchant,
    input: CreateCheckoutSessionDto,
    idempotencyKey: string | undefined,
    subMerchantCode: string | undefined,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    const request: IdempotentRequest = {
      merchantId: merchant.merchantId,
      key: idempotencyKey,
      endpoint: CREATE_SESSION_ENDPOINT,
      // The header changes what is created, so a different sub-merchant is a different request.
      fingerprint: { body: input, sub_merchant_code: subMerchantCode ?? null },
    };
    try {
      return await this.createOnce(merchant, input, request, subMerchantCode);
    } catch (error) {
      // A replay answers what the first request got, even if it could not be created now.
      const stored = await this.idempotency.storedResult<CheckoutSessionDto>(request);
      if (stored) return stored;
      throw error;
    }
  }

  private async createOnce(
    merchant: AuthenticatedMerchant,
    input: CreateCheckoutSessionDto,
    request: IdempotentRequest,
    subMerchantCode: string | undefined,
  ): Promise<IdempotentResult<CheckoutSessionDto>> {
    const subMerchant = await this.subMerchants.resolveForCreation(merchant, subMerchantCode);
    const network = this.networks.get(input.network);
    const token = this.networks.token(input.network, input.currency);
    if (!token) {
      throw new ApiException(
        ErrorCode.UnsupportedNetworkCurrency,
        `${input.currency} is not available on ${input.network} (${network.displayName}).`,
        'currency',
      );
    }
    const quote = this.pricing.quote(input.pricing_amount, input.pricing_currency);
    // The address is taken outside the transaction (see PayAddressPool.next): a replayed or failed
    // request leaves it unused forever, which costs nothing.
    const address = await this.pool.next(network.chainFamily);
    const row: NewSessionRow = {
      id: newId(ID_PREFIX.checkoutSession),
      merchantId: merchant.merchantId,
      subMerchantId: subMerchant?.id ?? null,
      livemode: this.config.livemode,
      amount: quote.amount.toFixed(),
      defaultFeeRule: this.defaultFee,
      currency: input.currency,
      network: input.network,
      chainFamily: network.chainFamily,
      currencyContract: token.contract,
      keyFingerprint: this.pool.fingerprintOf(network.chainFamily),
      pricingAmount: input.pricing_amount,
      pricingCurrency: input.pricing_currency,
      exchangeRate: quote.exchangeRate.toFixed(),
      clientReferenceId: input.client_reference_id ?? null,
      successUrl: input.success_url ?? null,
      cancelUrl: input.cancel_url ?? null,
      lifetimeMinutes: this.config.sessionLifetimeMinutes,
    };
    const { record, insert } = newSessionRecord(row, address, new Date());
    const body = this.mapper.toDto(withSubMerchant(record, subMerchant), merchant);
    return this.idempotency.executeInsert(request, { status: 201, body }, insert);
  }

  async get(merchant: AuthenticatedMerchant, id: string): Promise<CheckoutSessionDto> {
    const row = await this.sessions.findForMerchant(merchant.merchantId, id);
    if (!row) throw ApiException.notFound('checkout session', id);
    return this.mapper.toDto(row, merchant);
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListCheckoutSessionsQueryDto,
    page: PageRequest,
  ): Promise<{ items: CheckoutSessionDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.sessions.list(
      {
        merchantId: merchant.merchantId,
        scope,
        statuses: query.status,
        network: query.network,
        ...createdRange(query),
        searchText: query.search_text,
      },
      page,
    );
    return { items: rows.map((row) => this.mapper.toDto(row, merchant)), pageInfo };
  }
}

/** A freshly inserted row has no joined sub-merchant columns; fill them from what we resolved. */
function withSubMerchant(
  row: PublicSessionRecord,
  subMerchant: SubMerchantRef | null,
): PublicSessionRecord {
  if (!subMerchant) return row;
  return {
    ...row,
    sub_merchant_code: subMerchant.code,
    sub_merchant_name: subMerchant.name,
    sub_merchant_logo_url: subMerchant.logoUrl,
  };
}
