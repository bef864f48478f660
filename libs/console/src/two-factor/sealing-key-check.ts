import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig, DEVELOPMENT_WEBHOOK_SECRETS_KEY } from '@app/common';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True when this deployment is reachable beyond this machine (PUBLIC_URL names another host) yet
 * seals console TOTP secrets and recovery-code HMACs with the public development key (no
 * WEBHOOK_SECRETS_KEY): anyone with a database copy could read every second factor.
 */
export function sealsWithPublicKeyBeyondLocalhost(
  config: Pick<AppConfig, 'publicUrl' | 'webhooks'>,
): boolean {
  const usesDevelopmentKey =
    config.webhooks.secretsKey.toString('hex') === DEVELOPMENT_WEBHOOK_SECRETS_KEY;
  return usesDevelopmentKey && !LOCAL_HOSTS.has(new URL(config.publicUrl).hostname);
}

/**
 * A loud warning at startup, not a refusal: production already refuses the development key
 * (config validation); the sandbox keeps starting so local setups and the test suites (which
 * name a non-local PUBLIC_URL without a key) need no extra variable.
 */
@Injectable()
export class SealingKeyCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger(SealingKeyCheck.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    if (!sealsWithPublicKeyBeyondLocalhost(this.config)) return;
    this.logger.warn(
      `WEBHOOK_SECRETS_KEY is not set while PUBLIC_URL (${this.config.publicUrl}) is not ` +
        'localhost: console two-factor secrets, recovery codes and webhook secrets are sealed ' +
        'with the public development key. Set WEBHOOK_SECRETS_KEY (openssl rand -hex 32) on any ' +
        'deployment others can reach.',
    );
  }
}
