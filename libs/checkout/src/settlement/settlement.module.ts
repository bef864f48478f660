import { Module } from '@nestjs/common';
import { ChainsModule } from '@app/chains';
import { DEPOSIT_SETTLEMENT } from '@app/deposits';
import { EventOutboxModule } from '@app/events';
import { LedgerModule } from '@app/ledger';
import { CheckoutSessionMapper } from '../checkout-session.mapper';
import { SessionEvents } from './session-events';
import { SessionExpiryService } from './session-expiry.service';
import { SessionSettlementService } from './session-settlement.service';

/**
 * Settlement of sessions: what their transfers mean (status, fee, ledger credit, events), and
 * expiry. Provides the deposits' settlement port (DEPOSIT_SETTLEMENT) with the same
 * SessionSettlementService instance everything else uses, so the refunds' reversal listener it
 * holds hears the watcher's reversals too.
 */
@Module({
  imports: [ChainsModule, LedgerModule, EventOutboxModule],
  providers: [
    CheckoutSessionMapper,
    SessionEvents,
    SessionSettlementService,
    SessionExpiryService,
    { provide: DEPOSIT_SETTLEMENT, useExisting: SessionSettlementService },
  ],
  exports: [
    CheckoutSessionMapper,
    SessionSettlementService,
    SessionExpiryService,
    DEPOSIT_SETTLEMENT,
  ],
})
export class SettlementModule {}
