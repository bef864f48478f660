/**
 * TEST DOUBLE: the accounts of the fake TRON node (java-tron's AccountStore, much reduced).
 * Addresses are 41-prefixed lowercase hex, amounts in sun, energy in units, bandwidth in bytes.
 *
 * An address is an account only once created (CreateAccountContract, a TRX transfer to it, or
 * the test's setTrxBalance); a TRC-20 balance does not make one (it lives in the token's storage).
 *
 * Resources, Stake 2.0 (developers.tron.network/docs/resource-model):
 * - energy: the account's own stake for energy not lent out plus what others delegated to it,
 *   times `energyPerTrx` per whole TRX (java-tron: stake / total network stake * total energy
 *   limit; a fixed ratio keeps the fake deterministic);
 * - bandwidth: the same for bandwidth stake (`bandwidthPerTrx`), plus getFreeNetLimit free
 *   bytes a day for every account.
 * Usage recovers over 24 h in java-tron, linearly. Here it recovers all at once, 24 h of chain
 * time after its last use: within a test (a few minutes of blocks) used resources stay used.
 */
export const RESOURCE_WINDOW_MS = 24 * 60 * 60 * 1_000;
const SUN_PER_TRX = 1_000_000n;

export type FakeResource = 'ENERGY' | 'BANDWIDTH';

interface Usage {
  used: bigint;
  at: number;
}

export interface FakeAccount {
  balance: bigint;
  createTime: number;
  /**
   * Sun staked (FreezeBalanceV2) and not lent out: java-tron's frozenV2 amount. Delegating moves
   * stake from here to `delegatedOut` and undelegating moves it back, as java-tron does, so
   * frozenV2 plus delegated_frozenV2_balance_for_* is the whole stake (reconciliation counts both).
   */
  frozen: Record<FakeResource, bigint>;
  /** Sun of stake lent to other accounts (delegated_frozenV2_balance_for_*), not in `frozen`. */
  delegatedOut: Record<FakeResource, bigint>;
  /** Sun others delegated to this account. */
  acquired: Record<FakeResource, bigint>;
  energy: Usage;
  /** Staked bandwidth used. */
  net: Usage;
  freeNet: Usage;
}

export interface FakeResourceRatios {
  energyPerTrx: bigint;
  bandwidthPerTrx: bigint;
}

const noResources = (): Record<FakeResource, bigint> => ({ ENERGY: 0n, BANDWIDTH: 0n });

function copyAccount(account: FakeAccount): FakeAccount {
  return {
    ...account,
    frozen: { ...account.frozen },
    delegatedOut: { ...account.delegatedOut },
    acquired: { ...account.acquired },
    energy: { ...account.energy },
    net: { ...account.net },
    freeNet: { ...account.freeNet },
  };
}

/** What is still used at `now`: everything until 24 h after the last use, then nothing. */
export function usedAt(usage: Usage, now: number): bigint {
  return now - usage.at >= RESOURCE_WINDOW_MS ? 0n : usage.used;
}

/**
 * Adds `amount` to a usage at `now`, recovering first. Adding nothing (bringing the usage up to
 * date) does not restart the day: only a use does.
 */
export function consume(usage: Usage, amount: bigint, now: number): void {
  usage.used = usedAt(usage, now) + amount;
  if (amount > 0n) usage.at = now;
}

export class FakeTronAccounts {
  private readonly accounts = new Map<string, FakeAccount>();
  /** Delegations by `${from}:${to}`, in sun per resource. */
  private readonly delegations = new Map<string, Record<FakeResource, bigint>>();

  constructor(readonly ratios: FakeResourceRatios) {}

  /** A copy to run transactions on without touching this one (a broadcast's dry run). */
  clone(): FakeTronAccounts {
    const copy = new FakeTronAccounts(this.ratios);
    for (const [address, account] of this.accounts)
      copy.accounts.set(address, copyAccount(account));
    for (const [key, amounts] of this.delegations) copy.delegations.set(key, { ...amounts });
    return copy;
  }

  get(address: string): FakeAccount | undefined {
    return this.accounts.get(address);
  }

  create(address: string, createTime: number, balance = 0n): FakeAccount {
    const account: FakeAccount = {
      balance,
      createTime,
      frozen: noResources(),
      delegatedOut: noResources(),
      acquired: noResources(),
      energy: { used: 0n, at: 0 },
      net: { used: 0n, at: 0 },
      freeNet: { used: 0n, at: 0 },
    };
    this.accounts.set(address, account);
    return account;
  }

  delegated(from: string, to: string): Record<FakeResource, bigint> {
    return this.delegations.get(`${from}:${to}`) ?? noResources();
  }

  setDelegated(from: string, to: string, amounts: Record<FakeResource, bigint>): void {
    if (amounts.ENERGY === 0n && amounts.BANDWIDTH === 0n) this.delegations.delete(`${from}:${to}`);
    else this.delegations.set(`${from}:${to}`, amounts);
  }

  /** Whole TRX of stake counting for the account's own limit of a resource. */
  stakeFor(account: FakeAccount, resource: FakeResource): bigint {
    return (account.frozen[resource] + account.acquired[resource]) / SUN_PER_TRX;
  }

  energyLimit(account: FakeAccount): bigint {
    return this.stakeFor(account, 'ENERGY') * this.ratios.energyPerTrx;
  }

  netLimit(account: FakeAccount): bigint {
    return this.stakeFor(account, 'BANDWIDTH') * this.ratios.bandwidthPerTrx;
  }

  energyLeft(account: FakeAccount, now: number): bigint {
    const left = this.energyLimit(account) - usedAt(account.energy, now);
    return left > 0n ? left : 0n;
  }

  netLeft(account: FakeAccount, now: number): bigint {
    const left = this.netLimit(account) - usedAt(account.net, now);
    return left > 0n ? left : 0n;
  }

  /**
   * Sun of the owner's stake that may still be delegated: not lent out, and not covering energy
   * it used itself (java-tron's DelegateResourceActuator counts used resources against it too).
   */
  delegatable(account: FakeAccount, resource: FakeResource, now: number): bigint {
    const perTrx = resource === 'ENERGY' ? this.ratios.energyPerTrx : this.ratios.bandwidthPerTrx;
    const used = usedAt(resource === 'ENERGY' ? account.energy : account.net, now);
    const usedStake = perTrx > 0n ? ((used + perTrx - 1n) / perTrx) * SUN_PER_TRX : 0n;
    const free = account.frozen[resource] - usedStake;
    return free > 0n ? free : 0n;
  }

  /**
   * GetAccountServlet (visible=false): {} for an address that is no account; zero values left out
   * as protobuf JSON does.
   */
  accountJson(address: string, now: number): Record<string, unknown> {
    const account = this.accounts.get(address);
    if (!account) return {};
    const nonZero = (entries: Record<string, bigint | number>) =>
      Object.fromEntries(
        Object.entries(entries)
          .filter(([, value]) => value !== 0n && value !== 0)
          .map(([key, value]) => [key, Number(value)]),
      );
    const frozenV2 = [
      nonZero({ amount: account.frozen.BANDWIDTH }),
      { type: 'ENERGY', ...nonZero({ amount: account.frozen.ENERGY }) },
      { type: 'TRON_POWER' },
    ];
    return {
      address,
      ...nonZero({ balance: account.balance, create_time: account.createTime }),
      ...nonZero({
        net_usage: usedAt(account.net, now),
        latest_consume_time: account.net.at,
        free_net_usage: usedAt(account.freeNet, now),
        latest_consume_free_time: account.freeNet.at,
        delegated_frozenV2_balance_for_bandwidth: account.delegatedOut.BANDWIDTH,
        acquired_delegated_frozenV2_balance_for_bandwidth: account.acquired.BANDWIDTH,
      }),
      frozenV2,
      account_resource: nonZero({
        energy_usage: usedAt(account.energy, now),
        latest_consume_time_for_energy: account.energy.at,
        energy_window_size: 28_800,
        delegated_frozenV2_balance_for_energy: account.delegatedOut.ENERGY,
        acquired_delegated_frozenV2_balance_for_energy: account.acquired.ENERGY,
      }),
    };
  }

  /** GetAccountResourceServlet: {} for an address that is no account, zero values left out. */
  accountResourceJson(address: string, now: number, freeNetLimit: number): Record<string, number> {
    const account = this.accounts.get(address);
    if (!account) return {};
    const entries: Record<string, bigint> = {
      freeNetUsed: usedAt(account.freeNet, now),
      freeNetLimit: BigInt(freeNetLimit),
      NetUsed: usedAt(account.net, now),
      NetLimit: this.netLimit(account),
      EnergyUsed: usedAt(account.energy, now),
      EnergyLimit: this.energyLimit(account),
      tronPowerLimit:
        (account.frozen.ENERGY +
          account.frozen.BANDWIDTH +
          account.delegatedOut.ENERGY +
          account.delegatedOut.BANDWIDTH) /
        SUN_PER_TRX,
    };
    return Object.fromEntries(
      Object.entries(entries)
        .filter(([, value]) => value !== 0n)
        .map(([key, value]) => [key, Number(value)]),
    );
  }

  /** GetDelegatedResourceV2Servlet: the delegation from one account to another, if any. */
  delegatedResourceJson(from: string, to: string): Record<string, unknown> {
    const amounts = this.delegated(from, to);
    if (amounts.ENERGY === 0n && amounts.BANDWIDTH === 0n) return {};
    const delegated: Record<string, unknown> = { from, to };
    if (amounts.BANDWIDTH > 0n) delegated.frozen_balance_for_bandwidth = Number(amounts.BANDWIDTH);
    if (amounts.ENERGY > 0n) delegated.frozen_balance_for_energy = Number(amounts.ENERGY);
    return { delegatedResource: [delegated] };
  }
}
