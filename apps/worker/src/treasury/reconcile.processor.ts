import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { ChainError } from '@app/chains';
import { QUEUES, RECONCILIATION_JOBS } from '@app/common';
import { NetworkFeeFinality, ReconciliationMode, ReconciliationService } from '@app/treasury';

/** Thin: one run per network with holdings; a network whose node fails waits for the next run. */
@Processor(QUEUES.reconciliation)
export class ReconcileProcessor {
  private readonly logger = new Logger(ReconcileProcessor.name);

  constructor(
    private readonly reconciliation: ReconciliationService,
    private readonly feeFinality: NetworkFeeFinality,
  ) {}

  /** Per EVM network with fees not yet final; a network whose node fails waits for the next pass. */
  @Process(RECONCILIATION_JOBS.finalizeFees)
  async finalizeFees(): Promise<void> {
    for (const network of await this.feeFinality.networksToFinalize()) {
      try {
        await this.feeFinality.finalize(network);
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        this.logger.warn({ network, reason: error.message }, 'Fees not made final');
      }
    }
  }

  @Process(RECONCILIATION_JOBS.incremental)
  async incremental(): Promise<void> {
    await this.runAll('incremental');
  }

  @Process(RECONCILIATION_JOBS.full)
  async full(): Promise<void> {
    await this.runAll('full');
  }

  private async runAll(mode: ReconciliationMode): Promise<void> {
    for (const network of await this.reconciliation.networksToReconcile()) {
      try {
        await this.reconciliation.reconcile(network, mode);
      } catch (error) {
        if (!(error instanceof ChainError)) throw error;
        this.logger.warn({ network, mode, reason: error.message }, 'Reconciliation not run');
      }
    }
  }
}
