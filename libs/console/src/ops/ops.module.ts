import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import cookieParser from 'cookie-parser';
import { AuthModule } from '@app/auth';
import { PayoutsModule } from '@app/payouts';
import { ConsoleSessionsRepository } from '../sessions/console-sessions.repository';
import { OperatorSessionGuard } from './access/ops-access';
import { OpsSessionController } from './access/ops-session.controller';
import { OperatorSessions } from './access/operator-sessions';
import { OpsKeyRevocation } from './merchants/ops-key-revocation';
import { OpsMerchantsController } from './merchants/ops-merchants.controller';
import { OpsMerchantsReader } from './merchants/ops-merchants.reader';
import { PayoutDecisions } from './payout-reviews/payout-decisions';
import { PayoutReviewQueue } from './payout-reviews/payout-review-queue';
import { PayoutReviewsController } from './payout-reviews/payout-reviews.controller';
import {
  AdminQueueBoardMiddleware,
  ReadOnlyQueueBoardMiddleware,
} from './queues/queue-board.middleware';
import { QUEUE_BOARD_PATHS, QueueBoards } from './queues/queue-boards';
import { ViewAsController } from './view-as/view-as.controller';
import { ViewGrants } from './view-as/view-grants';

/**
 * The operator area's server side (docs/operators.md): /ops/api/* and the queue boards, all
 * behind an operator's fully signed-in session. Part of the API process only.
 */
@Module({
  imports: [AuthModule, PayoutsModule],
  controllers: [
    OpsSessionController,
    PayoutReviewsController,
    OpsMerchantsController,
    ViewAsController,
  ],
  providers: [
    ConsoleSessionsRepository,
    OperatorSessions,
    OperatorSessionGuard,
    PayoutReviewQueue,
    PayoutDecisions,
    OpsMerchantsReader,
    OpsKeyRevocation,
    ViewGrants,
    QueueBoards,
  ],
})
export class OpsModule implements NestModule {
  // Middleware, not routes: the boards are Express apps, and they must answer before the SPA's
  // catch-all page route for /ops/*. cookieParser again: the order among modules' middleware is
  // not ours to rely on, and it skips a request it has already parsed.
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(cookieParser(), ReadOnlyQueueBoardMiddleware)
      .forRoutes(QUEUE_BOARD_PATHS.readOnly.slice(1));
    consumer
      .apply(cookieParser(), AdminQueueBoardMiddleware)
      .forRoutes(QUEUE_BOARD_PATHS.admin.slice(1));
  }
}
