import { Module } from '@nestjs/common';

/**
 * The service's own money: sweeps from deposit addresses, the books of where every unit is, and
 * reconciliation of those books against the chains (docs/treasury.md).
 */
@Module({})
export class TreasuryModule {}
