import { Injectable } from '@nestjs/common';
import { ApiException, createdRange, PageInfo, PageRequest } from '@app/common';
import { AuthenticatedMerchant } from '@app/auth';
import { SubMerchantsService } from '@app/sub-merchants';
import { ListUnmatchedTransfersQueryDto } from './dto/list-unmatched-transfers-query.dto';
import { UnmatchedTransferDto } from './dto/unmatched-transfer.dto';
import { UnmatchedReason, UnmatchedStatus } from './unmatched-transfer';
import {
  toOperatorView,
  toUnmatchedTransferDto,
  UnmatchedTransferOperatorView,
} from './unmatched-transfer.mapper';
import { UnmatchedTransfersRepository } from './unmatched-transfers.repository';

/** Merchants read their unmatched transfers; operators read everyone's (CLI). */
@Injectable()
export class UnmatchedTransfersService {
  constructor(
    private readonly transfers: UnmatchedTransfersRepository,
    private readonly subMerchants: SubMerchantsService,
  ) {}

  async get(merchant: AuthenticatedMerchant, id: string): Promise<UnmatchedTransferDto> {
    const row = await this.transfers.findForMerchant(merchant.merchantId, merchant.livemode, id);
    if (!row) throw ApiException.notFound('unmatched transfer', id);
    return toUnmatchedTransferDto(row);
  }

  async list(
    merchant: AuthenticatedMerchant,
    query: ListUnmatchedTransfersQueryDto,
    page: PageRequest,
  ): Promise<{ items: UnmatchedTransferDto[]; pageInfo: PageInfo }> {
    const scope = await this.subMerchants.resolveListScope(
      merchant,
      query.include_sub_merchants,
      query.sub_merchant_code,
    );
    const { rows, pageInfo } = await this.transfers.list(
      {
        merchantId: merchant.merchantId,
        livemode: merchant.livemode,
        scope,
        reasons: query.reason,
        statuses: query.status,
        network: query.network,
        sessionId: query.session_id,
        ...createdRange(query),
      },
      page,
    );
    return { items: rows.map(toUnmatchedTransferDto), pageInfo };
  }

  /** Every merchant's and those of no merchant (unknown_address), newest first. */
  async listForOperator(filter: {
    merchantId?: string;
    network?: string;
    reasons?: UnmatchedReason[];
    statuses?: UnmatchedStatus[];
    limit: number;
  }): Promise<UnmatchedTransferOperatorView[]> {
    return (await this.transfers.listForOperator(filter)).map(toOperatorView);
  }
}
