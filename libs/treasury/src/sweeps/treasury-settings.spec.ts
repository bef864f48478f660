import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetworkName, NetworkRegistry } from '@app/chains';
import { loadTreasurySettings, TreasurySettingsError } from './treasury-settings';

/** Only what loading the file asks of the registry: each network's name and family. */
const registry = {
  get: (name: NetworkName) => ({ name, chainFamily: name === 'TRON' ? 'TRON' : 'EVM' }),
} as unknown as NetworkRegistry;

function load(settings: object) {
  const path = join(mkdtempSync(join(tmpdir(), 'treasury-settings-')), 'treasury.json');
  writeFileSync(path, JSON.stringify(settings));
  return () => loadTreasurySettings(path, registry);
}

describe('treasury settings: gasTopUp', () => {
  it.each(['BASE', 'OPTIMISM'])(
    'is refused on %s, an OP-stack network whose L1 data fee a top-up does not cover',
    (network) => {
      const loading = load({ [network]: { gasTopUp: true } });
      expect(loading).toThrow(TreasurySettingsError);
      expect(loading).toThrow(`${network}.gasTopUp is not supported on OP-stack networks`);
    },
  );

  it('is allowed on an EVM network that charges L2 gas only, and off by default on OP stacks', () => {
    const settings = load({ ETHEREUM: { gasTopUp: true }, BASE: {} })();
    expect(settings.get('ETHEREUM')?.gasTopUp).toBe(true);
    expect(settings.get('BASE')?.gasTopUp).toBe(false);
  });
});
