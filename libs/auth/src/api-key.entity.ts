import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Only the SHA-256 of a key is stored; the key itself is shown once, when created. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'merchant_id' })
  merchantId: string;

  @Column('bytea', { name: 'key_hash' })
  keyHash: Buffer;

  /** "sk_test_…a1B2": enough to recognise a key in a list, useless to an attacker. */
  @Column('text', { name: 'key_hint' })
  keyHint: string;

  @Column('boolean')
  livemode: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
