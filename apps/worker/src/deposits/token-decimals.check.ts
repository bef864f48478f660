import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ChainAdapters, NETWORK_NAMES, NetworkName, NetworkRegistry } from '@app/chains';
import { TokenCheck, WatchedTokens } from '@app/deposits/watched-tokens';
import { APP_CONFIG, AppConfig } from '@app/common';

/**
 * At start, compares the configured decimals of every watched token with its contract's
 * decimals() and says so loudly, so a wrong NETWORKS_FILE shows in the first seconds of a deploy
 * instead of as a wrong credit. It shares WatchedTokens with the deposit watcher: a token refused
 * here is never watched by this process, and a verified one is not asked again.
 *
 * It runs in the background: a node that is down or slow never holds the worker's start (the
 * watcher asks again on every tick until the node answers).
 */
@Injectable()
export class TokenDecimalsCheck implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(TokenDecimalsCheck.name);
  /** The start check's outcome, once it is done (for tests and diagnostics). */
  done: Promise<TokenCheck[]> = Promise.resolve([]);
  private stopping = false;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly networks: NetworkRegistry,
    private readonly adapters: ChainAdapters,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.done = this.run();
  }

  onModuleDestroy(): void {
    // Adapters close with the process: what fails after this is the shutdown, not the chain.
    this.stopping = true;
  }

  /** Checks every watched network's tokens; never throws. */
  async run(): Promise<TokenCheck[]> {
    try {
      // The deposit watcher's own instance (CheckoutModule does not export it).
      const watchedTokens = this.moduleRef.get(WatchedTokens, { strict: false });
      const perNetwork = await Promise.all(
        this.watchedNetworks().map((name) => this.checkNetwork(watchedTokens, name)),
      );
      return perNetwork.flat();
    } catch (error) {
      this.logger.error({ reason: reasonOf(error) }, 'Token decimals check could not run');
      return [];
    }
  }

  private async checkNetwork(
    watchedTokens: WatchedTokens,
    name: NetworkName,
  ): Promise<TokenCheck[]> {
    try {
      const checks = await watchedTokens.check(
        this.networks.get(name),
        this.adapters.adapterFor(name),
      );
      if (!this.stopping) this.report(name, checks);
      return checks;
    } catch (error) {
      if (!this.stopping) {
        this.logger.error(
          { network: name, reason: reasonOf(error) },
          'Token decimals check failed',
        );
      }
      return [];
    }
  }

  private report(network: NetworkName, checks: TokenCheck[]): void {
    const verified = checks.filter((check) => check.status === 'verified');
    const refused = checks.filter((check) => check.status === 'refused');
    const unverified = checks.filter((check) => check.status === 'unverified');
    if (verified.length > 0) {
      this.logger.log(
        {
          network,
          tokens: verified.map(({ token, actual }) => ({
            currency: token.currency,
            decimals: actual,
          })),
        },
        'Token decimals verified against their contracts',
      );
    }
    // WatchedTokens has logged each one with the details; this is the headline of the deploy.
    for (const { token, actual } of refused) {
      this.logger.error(
        { network, currency: token.currency, configured: token.decimals, actual },
        `WRONG TOKEN DECIMALS: ${network} ${token.currency} is configured with ${token.decimals}, ` +
          `its contract has ${actual}; deposit detection on ${network} is held. Fix ` +
          'NETWORKS_FILE and restart.',
      );
    }
    if (unverified.length > 0) {
      this.logger.warn(
        {
          network,
          tokens: unverified.map(({ token, error }) => ({
            currency: token.currency,
            reason: error.message,
          })),
        },
        'Token decimals not verified at start; the watcher checks again on every tick and scans ' +
          'the network once every token is confirmed',
      );
    }
  }

  /** WATCH_NETWORKS; unknown names are the deposit loops' to refuse, not this check's. */
  private watchedNetworks(): NetworkName[] {
    if (this.config.watchNetworks === 'all') return [...NETWORK_NAMES];
    return NETWORK_NAMES.filter((name) => this.config.watchNetworks.includes(name));
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
