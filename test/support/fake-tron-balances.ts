/**
 * TEST DOUBLE: the TRC-20 balances a FakeTronNode reports and moves, set by the test. Addresses
 * are 41-prefixed lowercase hex, amounts in token base units. (TRX balances are the accounts'
 * own: see fake-tron/accounts.ts.)
 *
 * Only the tokens a test gave balances to are accounted: a transfer() of any other contract
 * succeeds without moving anything, as the fake node's transfers always did.
 */
export class FakeTronBalances {
  private readonly tokens = new Map<string, Map<string, bigint>>();

  /** A copy to run transactions on without touching this one. */
  clone(): FakeTronBalances {
    const copy = new FakeTronBalances();
    for (const [contract, holders] of this.tokens) copy.tokens.set(contract, new Map(holders));
    return copy;
  }

  setToken(contract: string, holder: string, units: bigint): void {
    const holders = this.tokens.get(contract) ?? new Map<string, bigint>();
    holders.set(holder, units);
    this.tokens.set(contract, holders);
  }

  tokenOf(contract: string, holder: string): bigint {
    return this.tokens.get(contract)?.get(holder) ?? 0n;
  }

  /** Whether transfer() would succeed: always for a token the test did not account. */
  canTransfer(contract: string, from: string, amount: bigint): boolean {
    const holders = this.tokens.get(contract);
    return !holders || (holders.get(from) ?? 0n) >= amount;
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
