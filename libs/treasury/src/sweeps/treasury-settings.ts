import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import {
  CURRENCIES,
  Currency,
  isValidAddress,
  NETWORK_NAMES,
  NetworkName,
  NetworkRegistry,
  normalizeAddress,
} from '@app/chains';

/**
 * One network's treasury settings from TREASURY_FILE (docs/treasury.md, "Policy"). Amounts are in
 * whole tokens, prices in tokens per native coin; every one has a default but the addresses.
 */
export interface NetworkTreasurySettings {
  network: NetworkName;
  /** Where tokens past the hot wallet's target go; none: everything stays in the hot wallet. */
  treasuryAddress: string | null;
  /** EVM: the SweepDelegate deployed for this network's sweeper, hot wallet and treasury. */
  sweepDelegate: string | null;
  /** Per token: the hot wallet's level above which sweeps go to the treasury. */
  hotWalletTarget: Partial<Record<Currency, Decimal>>;
  /** An address is swept when it holds at least this much... */
  minimumSweep: Decimal;
  /** ...and its share of the batch's estimated cost is at most this percent of it... */
  maxCostPercent: Decimal;
  /** ...or, once its oldest unswept transfer is this old, at most this percent. */
  forceAfterHours: number;
  forcedMaxCostPercent: Decimal;
  /** Above this gas price (EVM, gwei) sweeps wait: deferred, never failed. */
  maxGasPriceGwei: Decimal;
  /**
   * What one native coin is worth in tokens, only to weigh a sweep's cost against what it moves.
   * Static and deliberately high by default: the policy then overestimates the cost and sweeps
   * later rather than burn more than its limit.
   */
  nativeCoinPrice: Decimal;
  /** Addresses per sweep transaction. */
  batchSize: number;
  /**
   * TRON: percent added to the node's energy estimate of a sweep transfer, both for the stake
   * lent to the address and for the transfer's fee_limit (tight: the limit is what a failure
   * could burn). Covers a price or estimate moving between estimate and execution.
   */
  tronEnergyMarginPercent: Decimal;
  /**
   * EVM: sweep by a gas top-up (the sweeper sends the deposit address the exact gas of one token
   * transfer, which the address then sends itself) instead of EIP-7702 batches: for nodes that
   * refuse type-4 transactions. No sweepDelegate is needed.
   */
  gasTopUp: boolean;
  /**
   * After a sweep that ended without sweeping an address (refused, skipped, reverted), the
   * address waits this long before it is planned again, doubled for each such sweep in a row
   * (capped at MAX_RETRY_BACKOFF_SECONDS), until one sweeps it. 0: no waiting.
   */
  retryBackoffSeconds: number;
}

export class TreasurySettingsError extends Error {}

const DEFAULT_MINIMUM: Record<NetworkName, string> = {
  TRON: '10',
  BSC: '10',
  ETHEREUM: '50',
  POLYGON: '10',
  ARBITRUM: '10',
  BASE: '10',
  OPTIMISM: '10',
};
const DEFAULT_MAX_GAS_GWEI: Record<NetworkName, string> = {
  TRON: '0',
  BSC: '5',
  ETHEREUM: '30',
  POLYGON: '500',
  ARBITRUM: '1',
  BASE: '1',
  OPTIMISM: '1',
};
const DEFAULT_NATIVE_PRICE: Record<NetworkName, string> = {
  TRON: '0.5',
  BSC: '1500',
  ETHEREUM: '6000',
  POLYGON: '2',
  ARBITRUM: '6000',
  BASE: '6000',
  OPTIMISM: '6000',
};
/** EIP-7702 batches: 50 authorizations keep a transaction far below every network's block gas. */
export const MAX_BATCH_SIZE = 50;

type RawSettings = Record<string, unknown>;

/** Reads TREASURY_FILE; a network absent from it is not swept. Never echoes the file's content. */
export function loadTreasurySettings(
  path: string | undefined,
  networks: NetworkRegistry,
): Map<NetworkName, NetworkTreasurySettings> {
  const settings = new Map<NetworkName, NetworkTreasurySettings>();
  if (!path) return settings;
  let parsed: Record<string, RawSettings>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, RawSettings>;
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'not valid JSON' : 'unreadable';
    throw new TreasurySettingsError(`TREASURY_FILE ${path} is ${reason}.`);
  }
  for (const [name, raw] of Object.entries(parsed ?? {})) {
    if (!NETWORK_NAMES.includes(name as NetworkName)) {
      throw new TreasurySettingsError(`TREASURY_FILE: unknown network ${name}.`);
    }
    const network = networks.get(name as NetworkName);
    settings.set(network.name, parseNetwork(network.name, network.chainFamily, raw ?? {}));
  }
  return settings;
}

function parseNetwork(
  network: NetworkName,
  family: 'EVM' | 'TRON',
  raw: RawSettings,
): NetworkTreasurySettings {
  const where = `TREASURY_FILE: ${network}`;
  const address = (field: string): string | null => {
    const value = raw[field];
    if (value === undefined || value === null || value === '') return null;
    if (!isValidAddress(family, value)) {
      throw new TreasurySettingsError(`${where}.${field} is not a valid ${family} address.`);
    }
    return normalizeAddress(family, value);
  };
  const amount = (field: string, fallback: string): Decimal => {
    const value = raw[field] ?? fallback;
    if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) {
      throw new TreasurySettingsError(`${where}.${field} must be a decimal string like "10.5".`);
    }
    return new Decimal(value);
  };
  const whole = (field: string, fallback: number, max: number): number => {
    const value = raw[field] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      throw new TreasurySettingsError(`${where}.${field} must be a whole number from 1 to ${max}.`);
    }
    return value;
  };
  const flag = (field: string, of: 'EVM' | 'TRON'): boolean => {
    const value = raw[field] ?? false;
    if (typeof value !== 'boolean')
      throw new TreasurySettingsError(`${where}.${field} must be true or false.`);
    if (value && family !== of)
      throw new TreasurySettingsError(`${where}.${field} is for ${of} networks only.`);
    return value;
  };
  const targets = (raw.hotWalletTarget ?? {}) as Record<string, unknown>;
  const hotWalletTarget: Partial<Record<Currency, Decimal>> = {};
  for (const [currency, value] of Object.entries(targets)) {
    if (!CURRENCIES.includes(currency as Currency)) {
      throw new TreasurySettingsError(`${where}.hotWalletTarget: unknown currency ${currency}.`);
    }
    if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value)) {
      throw new TreasurySettingsError(
        `${where}.hotWalletTarget.${currency} must be a decimal string.`,
      );
    }
    hotWalletTarget[currency as Currency] = new Decimal(value);
  }
  const treasuryAddress = address('treasuryAddress');
  if (Object.keys(hotWalletTarget).length && !treasuryAddress) {
    throw new TreasurySettingsError(`${where}.hotWalletTarget needs a treasuryAddress.`);
  }
  return {
    network,
    treasuryAddress,
    sweepDelegate: family === 'EVM' ? address('sweepDelegate') : null,
    hotWalletTarget,
    minimumSweep: amount('minimumSweep', DEFAULT_MINIMUM[network]),
    maxCostPercent: amount('maxCostPercent', '1'),
    forceAfterHours: whole('forceAfterHours', 24, 24 * 365),
    forcedMaxCostPercent: amount('forcedMaxCostPercent', '5'),
    maxGasPriceGwei: amount('maxGasPriceGwei', DEFAULT_MAX_GAS_GWEI[network]),
    nativeCoinPrice: amount('nativeCoinPrice', DEFAULT_NATIVE_PRICE[network]),
    batchSize: whole('batchSize', MAX_BATCH_SIZE, MAX_BATCH_SIZE),
    tronEnergyMarginPercent: amount('tronEnergyMarginPercent', '10'),
    gasTopUp: gasTopUp(network, where, flag('gasTopUp', family)),
    retryBackoffSeconds: backoff(where, raw.retryBackoffSeconds),
  };
}

/** The longest an address backs off: a refusal lifted is noticed within this. */
export const MAX_RETRY_BACKOFF_SECONDS = 6 * 3600;

function backoff(where: string, value: unknown = 60): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 86_400) {
    throw new TreasurySettingsError(
      `${where}.retryBackoffSeconds must be a whole number from 0 to 86400.`,
    );
  }
  return value;
}

/**
 * OP-stack rollups (their sender also pays an L1 data fee that gas limit x max fee does not
 * cover): a top-up of exactly the L2 gas leaves the transfer short for good, re-sent every pass.
 */
export const NO_GAS_TOP_UP: readonly NetworkName[] = ['BASE', 'OPTIMISM'];

function gasTopUp(network: NetworkName, where: string, wanted: boolean): boolean {
  if (wanted && NO_GAS_TOP_UP.includes(network)) {
    throw new TreasurySettingsError(
      `${where}.gasTopUp is not supported on OP-stack networks: a transaction there also pays ` +
        'an L1 data fee the top-up does not cover, so the deposit address could never send its ' +
        'tokens. Sweep with EIP-7702 batches (sweepDelegate) instead.',
    );
  }
  return wanted;
}
