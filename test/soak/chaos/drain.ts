import { NestFactory } from '@nestjs/core';
import { ChainError } from '@app/chains';
import { differs, NetworkFeeFinality, ReconciliationService } from '@app/treasury';
import { CliModule } from '../../../apps/cli/src/cli.module';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { creditedOnce, eventsDelivered, query } from './checks';
import type { LoadSession } from './load';
import { receivedOrder } from './monitors';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OpenWork {
  payouts: number;
  refunds: number;
  sweeps: number;
}

export interface DrainOutcome {
  drained: boolean;
  /** Seconds from the drain's start until each condition first held (the report's drain steps). */
  steps: Record<string, number>;
  /** In-process reconciliations run before the books matched the chain. */
  reconcileTries: number;
  open: OpenWork;
}

async function openWork(url: string): Promise<OpenWork> {
  const [row] = await query<{ payouts: string; refunds: string; sweeps: string }>(
    url,
    `SELECT (SELECT count(*) FROM payouts WHERE status IN ('Pending', 'Processing')) AS payouts,
            (SELECT count(*) FROM refunds WHERE status IN ('Pending', 'Processing')) AS refunds,
            (SELECT count(*) FROM sweeps WHERE status = 'Processing') AS sweeps`,
  );
  return { payouts: Number(row.payouts), refunds: Number(row.refunds), sweeps: Number(row.sweeps) };
}

/**
 * `treasury:reconcile`'s own run (every network with holdings, a full run each, waiting for a
 * run under way) in this process: the drain tries it each time the rest has settled, which a
 * CLI process started per try made cost 10–30 s of a loaded machine each. The books match when
 * no row differs and every chain answered, exactly the CLI's exit 0; the checks afterwards still
 * run the CLI itself.
 */
async function inProcessReconciler() {
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false });
  await app.init();
  const service = app.get(ReconciliationService);
  const feeFinality = app.get(NetworkFeeFinality);
  return {
    /**
     * The pass that makes booked fees final (the worker's, run here too so the drain need not
     * wait for its schedule): the EVM networks whose fees are not yet all final afterwards. The
     * devnet's 1 s blocks bring them to finalityBlocks; one left for an operator keeps it open.
     */
    async feesNotFinal(): Promise<string[]> {
      const waiting: string[] = [];
      for (const network of await feeFinality.networksToFinalize()) {
        try {
          const report = await feeFinality.finalize(network);
          if (report.waiting + report.operator > 0)
            waiting.push(`${network} ${JSON.stringify(report)}`);
        } catch (error) {
          if (!(error instanceof ChainError)) throw error;
          waiting.push(`${network} not read: ${error.message}`);
        }
      }
      // A full batch leaves more for the next round.
      return waiting.length ? waiting : (await feeFinality.networksToFinalize()).map(String);
    },
    async reconciled(): Promise<{ held: boolean; detail: string }> {
      const differing: string[] = [];
      for (const network of await service.networksToReconcile()) {
        try {
          for (const row of (await service.reconcile(network, 'full', true)) ?? [])
            if (differs(row)) differing.push(`${network} ${row.currency} ${row.difference}`);
        } catch (error) {
          if (!(error instanceof ChainError)) throw error;
          differing.push(`${network} not reconciled: ${error.message}`);
        }
      }
      return { held: !differing.length, detail: differing.join(', ') };
    },
    close: () => app.close(),
  };
}

/**
 * With the load and the nemesis stopped, waits until the service has finished what it was given:
 * each transfer booked once, no payout, refund or sweep still open, every event delivered to the
 * steady endpoint, every booked fee final, and the books equal to the chains (sweeps start on
 * their own clock: the books settle once the last one is booked). One round a second: the
 * workers finishing the work get the machine, not the polling.
 */
export async function drain(options: {
  url: string;
  merchantId: string;
  sessions: LoadSession[];
  steady: WebhookReceiver;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<DrainOutcome> {
  const { url, log } = options;
  const started = Date.now();
  const steps: Record<string, number> = {};
  const mark = (step: string) => {
    steps[step] ??= Math.round((Date.now() - started) / 100) / 10;
  };
  const reconciler = await inProcessReconciler();
  mark('in-process operator module up');
  let tries = 0;
  let lastLog = started;
  let open: OpenWork = { payouts: 0, refunds: 0, sweeps: 0 };
  try {
    for (;;) {
      const credited = await creditedOnce(url, options.sessions);
      open = await openWork(url);
      const events = await eventsDelivered(
        url,
        options.merchantId,
        receivedOrder(options.steady).eventIds,
      );
      const ended = open.payouts + open.refunds + open.sweeps === 0;
      if (credited.held) mark('each transfer booked once');
      if (open.payouts + open.refunds === 0) mark('payouts and refunds ended');
      if (ended) mark('payouts, refunds and sweeps ended (first time)');
      if (!events.missing.length) mark('every event delivered');
      let books = '';
      if (credited.held && ended && !events.missing.length) {
        // A fee a reorg changed is corrected once its receipt is final: only then can the books
        // equal the chain.
        const notFinal = await reconciler.feesNotFinal();
        if (!notFinal.length) {
          mark('every fee final');
          tries++;
          const reconciled = await reconciler.reconciled();
          if (reconciled.held) {
            mark('books = chains (in-process treasury:reconcile)');
            return { drained: true, steps, reconcileTries: tries, open };
          }
          books = `; books differ: ${reconciled.detail}`;
        } else books = `; fees not final: ${notFinal.join(', ')}`;
      }
      if (Date.now() - started > options.timeoutMs)
        return { drained: false, steps, reconcileTries: tries, open };
      if (Date.now() - lastLog >= 30_000) {
        lastLog = Date.now();
        log(
          `drain: open ${JSON.stringify(open)}, transfers ${credited.held ? 'booked' : 'not all booked'}, ` +
            `${events.missing.length} events undelivered, ${tries} reconciliations${books}`,
        );
      }
      await sleep(1000);
    }
  } finally {
    await reconciler.close();
  }
}
