import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger } from '@nestjs/common';
import { ChainError } from '@app/chains';
import { APP_CONFIG, AppConfig, QUEUES, RECONCILIATION_JOBS } from '@app/common';
import { NetworkFeeFinality, ReconciliationMode, ReconciliationService } from '@app/treasury';
import { mapConcurrently } from '@app/treasury/reconciliation/balance-reads';

/** Fee passes of EVM networks run at once. */
const NETWORKS_AT_ONCE = 2;

/** Thin: one run per network with holdings; a network whose node fails waits for the next run. */
@Processor(QUEUES.reconciliation)
export class ReconcileProcessor {
  private readonly logger = new Logger(ReconcileProcessor.name);

  constructor(
    private readonly reconciliation: ReconciliationService,
    private readonly feeFinality: NetworkFeeFinality,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The EVM networks with fees not yet final, two side by side (each its own node; each pass
   * holds a connection for its lock and up to 8 reads' statements), all within half the
   * schedule's interval so the job ends before the next is due. A network whose pass runs
   * elsewhere is skipped, one whose node fails waits for the next pass; any other error fails the
   * job once every pass has ended.
   */
  @Process(RECONCILIATION_JOBS.finalizeFees)
  async finalizeFees(): Promise<void> {
    // One deadline for the job: a network started late gets what is left (review r11, 7).
    const deadline = Date.now() + this.config.treasury.reconcileIntervalMs / 2;
    const networks = await this.feeFinality.networksToFinalize();
    const failures: unknown[] = [];
    await mapConcurrently(networks, NETWORKS_AT_ONCE, async (network) => {
      const budgetMs = deadline - Date.now();
      if (budgetMs <= 0) return;
      try {
        await this.feeFinality.finalize(network, { budgetMs, wait: false });
      } catch (error) {
        if (error instanceof ChainError) {
          this.logger.warn({ network, reason: error.message }, 'Fees not made final');
        } else {
          failures.push(error);
        }
      }
    });
    if (failures.length) throw failures[0];
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
