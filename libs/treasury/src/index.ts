export * from './treasury.module';
export * from './sweeps/treasury-sweeps.service';
export * from './sweeps/sweep-keys';
export * from './sweeps/sweep-status.service';
export { sweptEntry } from './sweeps/sweep-outcomes.service';
export { loadTreasurySettings } from './sweeps/treasury-settings';
export type { NetworkTreasurySettings } from './sweeps/treasury-settings';
