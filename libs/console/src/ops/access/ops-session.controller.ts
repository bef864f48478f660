import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@app/common';
import { CurrentOperator, OpsAuth } from './ops-access';
import { OperatorSession } from './operator-sessions';

/** Who is signed in to the operator area, with which role, the CSRF token, and any live view. */
@ApiExcludeController()
@Controller('ops/api')
export class OpsSessionController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('session')
  @OpsAuth()
  async current(@CurrentOperator() operator: OperatorSession) {
    const view = operator.viewAs;
    let viewAs = null;
    if (view) {
      const [merchant]: Array<{ name: string }> = await this.dataSource.query(
        `SELECT name FROM merchants WHERE id = $1`,
        [view.merchantId],
      );
      viewAs = {
        merchant_id: view.merchantId,
        merchant_name: merchant?.name ?? null,
        reason: view.reason,
        expires_at: view.expiresAt.toISOString(),
      };
    }
    return {
      operator: { id: operator.userId, email: operator.email },
      role: operator.operatorRole,
      csrf_token: operator.csrfToken,
      livemode: this.config.livemode,
      view_as: viewAs,
    };
  }
}
