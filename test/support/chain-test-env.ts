import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Points NETWORKS_FILE (and any other variables) at a suite's own chain for the apps it starts,
 * and gives the previous values back afterwards so later suites see the default environment.
 */
export function useChainEnvironment(networksFileJson: string, extra: Record<string, string> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'networks-')), 'networks.json');
  writeFileSync(path, networksFileJson);
  const changes: Record<string, string> = { NETWORKS_FILE: path, ...extra };
  const previous = Object.fromEntries(
    Object.keys(changes).map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, changes);
  return {
    path,
    restore(): void {
      for (const [name, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}
