import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  ApiException,
  ErrorCode,
  ID_PREFIX,
  newId,
  PageInfo,
  PageRequest,
} from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { IdempotencyService, IdempotentResult } from '@app/idempotency';
import { CreateSubMerchantDto } from './dto/create-sub-merchant.dto';
import { ListSubMerchantsQueryDto } from './dto/list-sub-merchants-query.dto';
import { SubMerchantDto } from './dto/sub-merchant.dto';
import { UpdateSubMerchantDto } from './dto/update-sub-merchant.dto';
import { SUB_MERCHANT_CODE_HEADER, SubMerchantRef, SubMerchantScope } from './sub-merchant-context';
import { SUB_MERCHANT_CODE_PATTERN } from './sub-merchant.entity';
import { toSubMerchantDto } from './sub-merchant.mapper';
import { SubMerchantChanges, SubMerchantsRepository } from './sub-merchants.repository';

export const CREATE_SUB_MERCHANT_ENDPOINT = 'POST /v1/sub-merchants';

@Injectable()
export class SubMerchantsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly subMerchants: SubMerchantsRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  async create(
    merchant: AuthenticatedMerchant,
    input: CreateSubMerchantDto,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResult<SubMerchantDto>> {
    assertPsp(merchant, 'Only PSP accounts can manage sub-merchants.');
    return this.idempotency.execute(
      {
        merchantId: merchant.merchantId,
        key: idempotencyKey,
        endpoint: CREATE_SUB_MERCHANT_ENDPOINT,
        fingerprint: { body: input },
      },
      async (manager) => {
        const created = await this.subMerchants.insert(manager, {
          id: newId(ID_PREFIX.subMerchant),
          merchantId: merchant.merchantId,
          code: input.code,
          name: input.name,
          status: input.status ?? 'active',
          email: input.email ?? null,
          website: input.website ?? null,
          logoUrl: input.logo_url ?? null,
          metadata: input.metadata ?? {},
          livemode: this.config.livemode,
        });
        if (!created) {
          throw new ApiException(
            ErrorCode.ResourceAlreadyExists,
            `A sub-merchant with code '${input.code}' already exists.`,
            'code',
          );
        }
        return { status: 201, body: toSubMerchantDto(created) };
      },
    );
  }

  async get(merchant: AuthenticatedMerchant, code: string): Promise<SubMerchantDto> {
    assertPsp(merchant, 'Only PSP accounts can manage sub-merchants.');
    const row = await this.subMerchants.findByCode(merchant.merchantId, code);
    if (!row) throw ApiException.notFound('sub-merchant', code, 'code');
    return toSubMerchantDto(row);
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListSubMerchantsQueryDto,
    page: PageRequest,
  ): Promise<{ items: SubMerchantDto[]; pageInfo: PageInfo }> {
    assertPsp(merchant, 'Only PSP accounts can manage sub-merchants.');
    const { rows, pageInfo } = await this.subMerchants.list(
      {
        merchantId: merchant.merchantId,
        status: query.status,
        searchText: query.search_text,
      },
      page,
    );
    return { items: rows.map(toSubMerchantDto), pageInfo };
  }

  async update(
    merchant: AuthenticatedMerchant,
    code: string,
    input: UpdateSubMerchantDto,
  ): Promise<SubMerchantDto> {
    assertPsp(merchant, 'Only PSP accounts can manage sub-merchants.');
    const changes: SubMerchantChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.status !== undefined) changes.status = input.status;
    if (input.email !== undefined) changes.email = input.email;
    if (input.website !== undefined) changes.website = input.website;
    if (input.logo_url !== undefined) changes.logo_url = input.logo_url;
    if (input.metadata !== undefined) changes.metadata = input.metadata;
    const row = await this.subMerchants.update(merchant.merchantId, code, changes);
    if (!row) throw ApiException.notFound('sub-merchant', code, 'code');
    return toSubMerchantDto(row);
  }

  /**
   * The sub-merchant named by X-Sub-Merchant-Code on a creating request, or null without the header.
   * Only PSPs may send it; the code must be theirs and active.
   */
  async resolveForCreation(
    merchant: AuthenticatedMerchant,
    code: string | undefined,
  ): Promise<SubMerchantRef | null> {
    if (code === undefined) return null;
    assertPsp(merchant, `Only PSP accounts may send ${SUB_MERCHANT_CODE_HEADER}.`);
    const row = SUB_MERCHANT_CODE_PATTERN.test(code)
      ? await this.subMerchants.findByCode(merchant.merchantId, code)
      : null;
    if (!row) {
      throw new ApiException(
        ErrorCode.InvalidSubMerchantCode,
        `No sub-merchant with code '${code}'.`,
        SUB_MERCHANT_CODE_HEADER,
      );
    }
    if (row.status !== 'active') {
      throw new ApiException(
        ErrorCode.SubMerchantDisabled,
        `Sub-merchant '${code}' is disabled; enable it before creating anything for it.`,
        SUB_MERCHANT_CODE_HEADER,
      );
    }
    return { id: row.id, code: row.code, name: row.name, logoUrl: row.logo_url };
  }

  /** Codes of the merchant's sub-merchants with these internal ids (for presenting records). */
  async codesByIds(merchant: AuthenticatedMerchant, ids: string[]): Promise<Map<string, string>> {
    return this.subMerchants.codesByIds(merchant.merchantId, ids);
  }

  /** What a list shows: own records by default, all with include_sub_merchants, or one sub-merchant's. */
  async resolveListScope(
    merchant: AuthenticatedMerchant,
    includeSubMerchants: boolean | undefined,
    subMerchantCode: string | undefined,
  ): Promise<SubMerchantScope> {
    if (subMerchantCode === undefined) return { kind: includeSubMerchants ? 'all' : 'own' };
    assertPsp(merchant, 'Only PSP accounts may filter by sub_merchant_code.');
    const row = SUB_MERCHANT_CODE_PATTERN.test(subMerchantCode)
      ? await this.subMerchants.findByCode(merchant.merchantId, subMerchantCode)
      : null;
    if (!row) {
      throw new ApiException(
        ErrorCode.InvalidSubMerchantCode,
        `No sub-merchant with code '${subMerchantCode}'.`,
        'sub_merchant_code',
      );
    }
    return { kind: 'one', subMerchantId: row.id };
  }
}

function assertPsp(merchant: AuthenticatedMerchant, message: string): void {
  if (merchant.kind !== 'psp') throw new ApiException(ErrorCode.PermissionDenied, message);
}
