import { TronWeb } from 'tronweb';
import { tronError } from '../adapters/tron/tron-chain-reads';
import { isValidAddress } from '../hd/addresses';
import { NetworkConfig } from '../networks/network.types';

const SUN_PER_TRX = 1_000_000n;
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * What a sweep may read, build and sign on one TRON network: TRON addresses (as 41-hex), the
 * allowed destinations, the network's tokens, fee limits and stake amounts. A refusal throws a
 * permanent ChainError before anything is sent.
 */
export class TronSweepChecks {
  private readonly allowedDestinations: ReadonlySet<string>;
  private readonly tokens: ReadonlySet<string>;

  constructor(
    private readonly network: NetworkConfig,
    allowedDestinations: Iterable<string>,
  ) {
    const destinations = [...allowedDestinations];
    for (const destination of destinations) this.hexAddress(destination, 'allowed destination');
    this.allowedDestinations = new Set(destinations);
    this.tokens = new Set(Object.values(network.tokens).map((token) => token?.contract as string));
  }

  /** `to` as 41-hex, refused unless it is an allowed destination. */
  destination(to: string): string {
    const hex = this.hexAddress(to, 'to');
    if (!this.allowedDestinations.has(to)) {
      throw tronError(
        'permanent',
        `${JSON.stringify(to)} is not an allowed sweep destination`,
        this.network.name,
      );
    }
    return hex;
  }

  /** A transfer the deposit key may sign: a token of the network, to an allowed destination. */
  checkTransfer(token: string, to: string, amount: bigint): void {
    this.destination(to);
    this.hexAddress(token, 'token');
    if (!this.tokens.has(token)) {
      throw tronError('permanent', `${token} is not a token of the network`, this.network.name);
    }
    if (amount <= 0n || amount > MAX_UINT256) {
      throw tronError('permanent', `amount ${amount} is not a positive uint256`, this.network.name);
    }
  }

  checkFeeLimit(feeLimitSun: bigint): void {
    // java-tron's JSON takes a number here: a safe integer of sun.
    if (feeLimitSun <= 0n || feeLimitSun > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw tronError(
        'permanent',
        `fee limit ${feeLimitSun} sun is out of range`,
        this.network.name,
      );
    }
  }

  /** A stake amount in sun as tronweb takes it: whole sun, at least 1 TRX (java-tron's minimum). */
  stakeAmount(stakeSun: bigint): number {
    if (stakeSun < SUN_PER_TRX || stakeSun > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw tronError(
        'permanent',
        `stake ${stakeSun} sun is out of range (at least 1 TRX)`,
        this.network.name,
      );
    }
    return Number(stakeSun);
  }

  /** 41-prefixed lowercase hex, the form of visible=false requests. */
  hexAddress(address: string, name: string): string {
    if (!isValidAddress('TRON', address)) {
      const message = `${name} ${JSON.stringify(address)} is not a TRON address`;
      throw tronError('permanent', message, this.network.name);
    }
    return TronWeb.address.toHex(address).toLowerCase();
  }
}
