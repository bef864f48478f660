import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const SUB_MERCHANT_STATUSES = ['active', 'disabled'] as const;
export type SubMerchantStatus = (typeof SUB_MERCHANT_STATUSES)[number];
export const SUB_MERCHANT_CODE_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/** A PSP's sub-merchant. The PSP names it by `code`, unique within that PSP. */
@Entity('sub_merchants')
export class SubMerchantEntity {
  @PrimaryColumn('text') id: string;
  @Column('text', { name: 'merchant_id' }) merchantId: string;
  @Column('text') code: string;
  @Column('text') name: string;
  @Column('text') status: SubMerchantStatus;
  @Column('text', { nullable: true }) email: string | null;
  @Column('text', { nullable: true }) website: string | null;
  @Column('text', { name: 'logo_url', nullable: true }) logoUrl: string | null;
  @Column('jsonb') metadata: Record<string, string>;
  @Column('boolean') livemode: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
