import { Injectable, Logger } from '@nestjs/common';
import { ChainAdapter, ChainError, Currency, NetworkConfig, NetworkName } from '@app/chains';
import { tokensByContract, WatchedToken } from './token-index';

/** A token whose configured decimals differ from its contract's: its network is held. */
export interface RefusedToken {
  network: NetworkName;
  currency: Currency;
  contract: string;
  /** Decimals in the registry (NETWORKS_FILE or the built-in table). */
  configured: number;
  /** What the contract's decimals() answered. */
  actual: number;
}

/** A token not verified yet: its contract did not answer decimals() (asked again each tick). */
export interface UnverifiedToken {
  network: NetworkName;
  currency: Currency;
  contract: string;
  configured: number;
  reason: string;
  transient: boolean;
}

/** The outcome of checking one configured token against its contract. */
export type TokenCheck =
  | { status: 'verified'; token: WatchedToken; actual: number }
  | { status: 'refused'; token: WatchedToken; actual: number }
  | { status: 'unverified'; token: WatchedToken; error: ChainError };

/**
 * The tokens of a network the watcher may credit, keyed by contract, once every configured token's
 * decimals equal its contract's own decimals(). Amounts are converted with the configured
 * decimals, so a typo (6 for BSC's 18) would credit 10^12 times the payment.
 *
 * Until then the network is held: `of` throws and the tick moves nothing. The network's cursor is
 * one for all its tokens, so a tick that scanned without one token would move past the blocks
 * holding its payments and never look at them again (payments lost for good, where a held network
 * only delays them: every one is found when the tick runs again). Held are: a token refused for
 * wrong decimals (for the life of the process, reported by refusedTokens and logged as an error:
 * fix NETWORKS_FILE and restart), and one whose contract did not answer, transiently (node down)
 * or permanently (no code at the address, a revert, an answer that is no uint8: possibly one
 * unsynced URL's answer), asked again every tick.
 *
 * The contract's answer is asked once per network and contract and kept: decimals() of a token
 * does not change. A failed question is not kept.
 */
@Injectable()
export class WatchedTokens {
  private readonly logger = new Logger(WatchedTokens.name);
  /** decimals() as the chain answered, by network and contract. */
  private readonly actualDecimals = new Map<string, number>();
  /** Questions on their way, so concurrent ticks and the start check share one request. */
  private readonly asking = new Map<string, Promise<number>>();
  private readonly refused = new Map<string, RefusedToken>();
  private readonly unverified = new Map<string, UnverifiedToken>();

  async of(network: NetworkConfig, adapter: ChainAdapter): Promise<Map<string, WatchedToken>> {
    const checks = await this.check(network, adapter);
    const held = holdReason(network.name, checks);
    if (held) throw held;
    return new Map(checks.map((check) => [check.token.contract, check.token]));
  }

  /** Checks every configured token of the network; chain errors become 'unverified' outcomes. */
  async check(network: NetworkConfig, adapter: ChainAdapter): Promise<TokenCheck[]> {
    const tokens = [...tokensByContract(network).values()];
    return Promise.all(tokens.map((token) => this.checkToken(network.name, adapter, token)));
  }

  /** Tokens left out because their configured decimals are wrong (until the process restarts). */
  refusedTokens(): RefusedToken[] {
    return sorted([...this.refused.values()]);
  }

  /** Tokens left out for now because their contract could not be asked or did not answer. */
  unverifiedTokens(): UnverifiedToken[] {
    return sorted([...this.unverified.values()]);
  }

  private async checkToken(
    network: NetworkName,
    adapter: ChainAdapter,
    token: WatchedToken,
  ): Promise<TokenCheck> {
    const key = `${network}:${token.contract}`;
    let actual: number;
    try {
      actual = await this.actualOf(key, adapter, token.contract);
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      this.noteUnverified(key, network, token, error);
      return { status: 'unverified', token, error };
    }
    this.unverified.delete(key);
    if (actual === token.decimals) return { status: 'verified', token, actual };
    if (!this.refused.has(key)) {
      const refused: RefusedToken = {
        network,
        currency: token.currency,
        contract: token.contract,
        configured: token.decimals,
        actual,
      };
      this.refused.set(key, refused);
      this.logger.error(
        refused,
        `${network} ${token.currency}: configured with ${token.decimals} decimals, but the contract ` +
          `${token.contract} has ${actual}. Deposit detection on ${network} is HELD (nothing is ` +
          'credited on it, nothing is lost) until the decimals in NETWORKS_FILE are fixed and the ' +
          'process restarted.',
      );
    }
    return { status: 'refused', token, actual };
  }

  private actualOf(key: string, adapter: ChainAdapter, contract: string): Promise<number> {
    const known = this.actualDecimals.get(key);
    if (known !== undefined) return Promise.resolve(known);
    let question = this.asking.get(key);
    if (!question) {
      question = adapter
        .getTokenDecimals(contract)
        .then((decimals) => {
          this.actualDecimals.set(key, decimals);
          return decimals;
        })
        .finally(() => this.asking.delete(key));
      this.asking.set(key, question);
    }
    return question;
  }

  private noteUnverified(
    key: string,
    network: NetworkName,
    token: WatchedToken,
    error: ChainError,
  ): void {
    const previous = this.unverified.get(key);
    this.unverified.set(key, {
      network,
      currency: token.currency,
      contract: token.contract,
      configured: token.decimals,
      reason: error.message,
      transient: error.transient,
    });
    // Asked again every tick: a log line when the reason changes, not one per tick.
    if (previous?.reason === error.message) return;
    const details = {
      network,
      currency: token.currency,
      contract: token.contract,
      reason: error.message,
    };
    if (error.transient) {
      this.logger.warn(
        details,
        `${network} ${token.currency}: decimals() could not be checked yet; detection on ` +
          `${network} waits until it is`,
      );
    } else {
      this.logger.error(
        details,
        `${network} ${token.currency}: the contract did not answer decimals(); detection on ` +
          `${network} is held until it does (or the token is removed from NETWORKS_FILE)`,
      );
    }
  }
}

/**
 * Why a network cannot be scanned yet, the first reason in the order an operator should act on
 * (wrong decimals, a contract that does not answer, a node that could not be asked), or null.
 */
function holdReason(network: NetworkName, checks: TokenCheck[]): ChainError | null {
  const refused = checks.find((check) => check.status === 'refused');
  if (refused) {
    const { token, actual } = refused;
    return new ChainError(
      'permanent',
      `${token.currency} is configured with ${token.decimals} decimals, its contract has ` +
        `${actual}: detection is held until NETWORKS_FILE is fixed and the worker restarted`,
      network,
    );
  }
  const unverified = checks.flatMap((check) => (check.status === 'unverified' ? [check] : []));
  const failed = unverified.find((check) => !check.error.transient) ?? unverified[0];
  if (!failed) return null;
  return new ChainError(
    failed.error.kind,
    `decimals() of ${failed.token.currency} could not be checked: ${failed.error.message}`,
    network,
  );
}

/** Copies in (network, currency) order, so reports read the same on every call. */
function sorted<T extends { network: string; currency: string }>(tokens: T[]): T[] {
  return tokens
    .map((token) => ({ ...token }))
    .sort((a, b) => a.network.localeCompare(b.network) || a.currency.localeCompare(b.currency));
}
