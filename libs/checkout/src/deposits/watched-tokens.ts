import { Injectable, Logger } from '@nestjs/common';
import { ChainAdapter, ChainError, Currency, NetworkConfig, NetworkName } from '@app/chains';
import { tokensByContract, WatchedToken } from './token-index';

/** A token whose configured decimals differ from its contract's: never watched by this process. */
export interface RefusedToken {
  network: NetworkName;
  currency: Currency;
  contract: string;
  /** Decimals in the registry (NETWORKS_FILE or the built-in table). */
  configured: number;
  /** What the contract's decimals() answered. */
  actual: number;
}

/** A token not watched for now: its contract did not answer decimals() (asked again each tick). */
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
 * The tokens of a network the watcher may credit, keyed by contract: those whose configured
 * decimals equal the contract's own decimals(). Amounts are converted with the configured
 * decimals, so a typo (6 for BSC's 18) would credit 10^12 times the payment; such a token is
 * left out for the life of the process and reported (refusedTokens).
 *
 * The contract's answer is asked once per network and contract and kept: decimals() of a token
 * does not change. A failed question is not kept. A transient failure (the node could not be
 * asked) fails the whole tick, so the cursor does not move past blocks of a token that was not
 * scanned; a permanent one (no contract at the address, decimals() reverts) leaves the token out
 * and asks again on the next tick.
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
    const failed = checks.find((check) => check.status === 'unverified' && check.error.transient);
    if (failed?.status === 'unverified') {
      throw new ChainError(
        'transient',
        `decimals() of ${failed.token.currency} could not be checked: ${failed.error.message}`,
        network.name,
      );
    }
    const watched = new Map<string, WatchedToken>();
    for (const check of checks) {
      if (check.status === 'verified') watched.set(check.token.contract, check.token);
    }
    return watched;
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
          `${token.contract} has ${actual}. Payments in ${token.currency} on ${network} are NOT ` +
          'detected or credited until the decimals in NETWORKS_FILE are fixed and the process restarted.',
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
        `${network} ${token.currency}: decimals() could not be checked yet; not watched until it is`,
      );
    } else {
      this.logger.error(
        details,
        `${network} ${token.currency}: the contract did not answer decimals(); not watched`,
      );
    }
  }
}

/** Copies in (network, currency) order, so reports read the same on every call. */
function sorted<T extends { network: string; currency: string }>(tokens: T[]): T[] {
  return tokens
    .map((token) => ({ ...token }))
    .sort((a, b) => a.network.localeCompare(b.network) || a.currency.localeCompare(b.currency));
}
