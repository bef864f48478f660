import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { ApiScope } from './permissions';

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

  /** What the merchant calls it ("Shop backend"); null for keys issued before names existed. */
  @Column('text', { nullable: true })
  name: string | null;

  /** Null: a secret key with every API scope; otherwise a restricted key's scopes. */
  @Column('text', { array: true, nullable: true })
  scopes: ApiScope[] | null;

  /** Set when the key was rolled: it stops working at this time. */
  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  /** Approximate: written at most once a minute per key, off the request's path. */
  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  /** The console user who created it; null for keys issued by the CLI. */
  @Column('text', { name: 'created_by_user_id', nullable: true })
  createdByUserId: string | null;

  /** The key this one replaced when that key was rolled. */
  @Column('text', { name: 'rolled_from_key_id', nullable: true })
  rolledFromKeyId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
