import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ID_PREFIX, newId } from '@app/common';
import { MerchantEntity, MerchantKind } from './merchant.entity';

export interface NewMerchant {
  name: string;
  kind: MerchantKind;
  logoUrl?: string | null;
}

@Injectable()
export class MerchantsService {
  constructor(
    @InjectRepository(MerchantEntity) private readonly merchants: Repository<MerchantEntity>,
  ) {}

  /** With `manager`, written in the caller's transaction (the CLI audits it there). */
  async create(input: NewMerchant, manager?: EntityManager): Promise<MerchantEntity> {
    const merchants = manager ? manager.getRepository(MerchantEntity) : this.merchants;
    const merchant = merchants.create({
      id: newId(ID_PREFIX.merchant),
      kind: input.kind,
      name: input.name,
      logoUrl: input.logoUrl ?? null,
    });
    await merchants.insert(merchant);
    return merchant;
  }

  async findById(id: string): Promise<MerchantEntity | null> {
    return this.merchants.findOneBy({ id });
  }

  /** Per-merchant fee rule; null falls back to the configured default (FEE_PERCENT, FEE_FIXED). */
  async setFeeRule(id: string, percent: string | null, fixed: string | null): Promise<boolean> {
    const result = await this.merchants
      .createQueryBuilder()
      .update()
      .set({ feePercent: percent, feeFixed: fixed })
      .where('id = :id', { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Per-merchant payout policy: the percent fee (null falls back to PAYOUT_FEE_PERCENT) and whether
   * payouts to never-paid addresses wait for review. Applies to payouts created from now on.
   */
  async setPayoutPolicy(
    id: string,
    feePercent: string | null,
    reviewNewDestinations: boolean,
  ): Promise<boolean> {
    const result = await this.merchants
      .createQueryBuilder()
      .update()
      .set({ payoutFeePercent: feePercent, reviewNewDestinations })
      .where('id = :id', { id })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async list(): Promise<MerchantEntity[]> {
    return this.merchants.find({ order: { createdAt: 'ASC' } });
  }
}
