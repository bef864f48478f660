import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, AppConfig, ApiException, clientAddressOf, ErrorCode } from '@app/common';
import { ApiKeysService } from './api-keys.service';
import { hasApiKeyShape, isLiveKey, keyPrefixFor } from './api-key-format';
import { AuthenticatedRequest } from './current-merchant.decorator';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { IS_PUBLIC_ROUTE } from './public.decorator';

/** `Authorization: Bearer sk_...` on every route not marked @Public(). */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly limiter: FailedAuthLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    try {
      request.merchant = await this.authenticate(request.headers.authorization);
      return true;
    } catch (error) {
      if (!(error instanceof ApiException)) throw error;
      // Only failures are counted and refused: a valid key is never locked out by its neighbours.
      const retryAfter = await this.limiter.recordFailure(clientAddressOf(request));
      if (retryAfter === 0) throw error;
      throw new ApiException(
        ErrorCode.RateLimited,
        `Too many failed authentication attempts from this address. Retry after ${retryAfter} s.`,
        undefined,
        { 'Retry-After': String(retryAfter) },
      );
    }
  }

  private async authenticate(header: string | undefined) {
    const expectedPrefix = keyPrefixFor(this.config.livemode);
    if (!header) {
      throw this.failure(
        `No API key provided. Send the header "Authorization: Bearer ${expectedPrefix}...".`,
      );
    }
    const match = /^Bearer ([^\s]+)$/.exec(header);
    if (!match) {
      throw this.failure(`Malformed Authorization header. Use "Bearer ${expectedPrefix}...".`);
    }
    const key = match[1];
    if (!hasApiKeyShape(key)) throw this.failure('Invalid API key.');
    if (isLiveKey(key) !== this.config.livemode) {
      throw new ApiException(
        ErrorCode.EnvironmentMismatch,
        this.config.livemode
          ? 'A sandbox key (sk_test_) was sent to the production environment. Use an sk_live_ key.'
          : 'A production key (sk_live_) was sent to the sandbox. Use an sk_test_ key.',
        'Authorization',
      );
    }
    const merchant = await this.apiKeys.authenticate(key);
    if (!merchant) throw this.failure('Invalid API key: unknown or revoked.');
    return merchant;
  }

  private failure(message: string): ApiException {
    return new ApiException(ErrorCode.AuthenticationFailed, message, 'Authorization', {
      'WWW-Authenticate': 'Bearer',
    });
  }
}
