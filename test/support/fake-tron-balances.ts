/**
 * TEST DOUBLE: the balances a FakeTronNode reports and moves, set by the test. Addresses are
 * 41-prefixed lowercase hex, amounts in sun (TRX) and token base units.
 *
 * Only the tokens a test gave balances to are accounted: a transfer() of any other contract
 * succeeds without moving anything, as the fake node's transfers always did.
 */
export class FakeTronBalances {
  private readonly trx = new Map<string, bigint>();
  private readonly tokens = new Map<string, Map<string, bigint>>();

  setTrx(holder: string, sun: bigint): void {
    this.trx.set(holder, sun);
  }

  /** The TRX balance, or undefined for an account that does not exist (never funded). */
  trxOf(holder: string): bigint | undefined {
    return this.trx.get(holder);
  }

  setToken(contract: string, holder: string, units: bigint): void {
    const holders = this.tokens.get(contract) ?? new Map<string, bigint>();
    holders.set(holder, units);
    this.tokens.set(contract, holders);
  }

  tokenOf(contract: string, holder: string): bigint {
    return this.tokens.get(contract)?.get(holder) ?? 0n;
  }

  /** Moves `amount` like the token's transfer(); false (a revert) when the sender lacks it. */
  transfer(contract: string, from: string, to: string, amount: bigint): boolean {
    const holders = this.tokens.get(contract);
    if (!holders) return true;
    const available = holders.get(from) ?? 0n;
    if (available < amount) return false;
    holders.set(from, available - amount);
    holders.set(to, (holders.get(to) ?? 0n) + amount);
    return true;
  }
}
