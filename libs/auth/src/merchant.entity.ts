import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const MERCHANT_KINDS = ['direct', 'psp'] as const;
export type MerchantKind = (typeof MERCHANT_KINDS)[number];

@Entity('merchants')
export class MerchantEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  kind: MerchantKind;

  @Column('text')
  name: string;

  @Column('text', { name: 'logo_url', nullable: true })
  logoUrl: string | null;

  /** Fee percent of received amounts; null means the configured default. */
  @Column('numeric', { name: 'fee_percent', precision: 7, scale: 4, nullable: true })
  feePercent: string | null;

  /** Fixed fee per paid session; null means the configured default. */
  @Column('numeric', { name: 'fee_fixed', precision: 38, scale: 18, nullable: true })
  feeFixed: string | null;

  /** Percent fee of each payout (on top of the network's fixed fee); null means the default. */
  @Column('numeric', { name: 'payout_fee_percent', precision: 7, scale: 4, nullable: true })
  payoutFeePercent: string | null;

  /** Whether a first payout to an address never paid before waits for an operator's review. */
  @Column('boolean', { name: 'review_new_destinations', default: false })
  reviewNewDestinations: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
