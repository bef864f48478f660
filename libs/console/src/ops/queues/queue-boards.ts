import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import Bull, { Queue } from 'bull';
import type { RequestHandler } from 'express';
import { APP_CONFIG, AppConfig, QUEUES, queueKeyPrefix } from '@app/common';

/** Where the boards are mounted (docs/operators.md, Queues). */
export const QUEUE_BOARD_PATHS = {
  /** Every operator: look, never touch (bull-board's readOnlyMode). */
  readOnly: '/ops/queues',
  /** Admins: retry, promote, clean, pause. */
  admin: '/ops/queues-admin',
} as const;

export type QueueBoardKind = keyof typeof QUEUE_BOARD_PATHS;

/**
 * The bull-board UIs over every queue of this environment, including those only the worker
 * processes (deposits, treasury...). Built on the first operator's visit: an API process nobody
 * inspects opens no extra Redis connections. The queues here never process jobs, they only read
 * and (admin board) act on them as bull-board's buttons ask.
 */
@Injectable()
export class QueueBoards implements OnModuleDestroy {
  private queues: Queue[] | null = null;
  private readonly routers = new Map<QueueBoardKind, RequestHandler>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  router(kind: QueueBoardKind): RequestHandler {
    let router = this.routers.get(kind);
    if (!router) {
      router = this.build(kind);
      this.routers.set(kind, router);
    }
    return router;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all((this.queues ?? []).map((queue) => queue.close()));
  }

  private build(kind: QueueBoardKind): RequestHandler {
    this.queues ??= Object.values(QUEUES).map(
      (name) => new Bull(name, this.config.redisUrl, { prefix: queueKeyPrefix(this.config) }),
    );
    const server = new ExpressAdapter();
    server.setBasePath(QUEUE_BOARD_PATHS[kind]);
    createBullBoard({
      queues: this.queues.map(
        (queue) => new BullAdapter(queue, { readOnlyMode: kind === 'readOnly' }),
      ),
      serverAdapter: server,
      options: { uiConfig: { boardTitle: kind === 'readOnly' ? 'Queues (read-only)' : 'Queues' } },
    });
    return server.getRouter() as RequestHandler;
  }
}
