import { Column, Entity, PrimaryColumn } from 'typeorm';

export const SESSION_TRANSACTION_STATUSES = ['Pending', 'Confirmed', 'Reverted'] as const;
export type SessionTransactionStatus = (typeof SESSION_TRANSACTION_STATUSES)[number];

/** An on-chain token transfer to a session's pay address; unique per (network, tx hash, log index). */
@Entity('session_transactions')
export class SessionTransactionEntity {
  @PrimaryColumn('text') id: string;
  @Column('text', { name: 'session_id' }) sessionId: string;
  @Column('text') network: string;
  @Column('text', { name: 'tx_hash' }) txHash: string;
  @Column('integer', { name: 'log_index' }) logIndex: number;
  @Column('numeric', { precision: 38, scale: 18 }) amount: string;
  @Column('text') status: SessionTransactionStatus;
  @Column('bigint', { name: 'block_number' }) blockNumber: string;
  @Column('text', { name: 'block_hash' }) blockHash: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
}
