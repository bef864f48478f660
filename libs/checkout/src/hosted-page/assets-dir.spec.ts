import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { HOSTED_PAGE_ASSET_TYPES, HOSTED_PAGE_ASSETS_DIR } from './assets-dir';

describe('hosted page assets', () => {
  it.each(Object.keys(HOSTED_PAGE_ASSET_TYPES))('%s is in HOSTED_PAGE_ASSETS_DIR', (file) => {
    expect(readFileSync(join(HOSTED_PAGE_ASSETS_DIR, file), 'utf8').length).toBeGreaterThan(1000);
  });

  it('stay small: script and style together well under the page budget', () => {
    const sizes = Object.keys(HOSTED_PAGE_ASSET_TYPES).map(
      (file) => readFileSync(join(HOSTED_PAGE_ASSETS_DIR, file)).length,
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(40_000);
  });

  it('the style loads nothing from outside (no fonts, no imports, no remote images)', () => {
    const css = readFileSync(join(HOSTED_PAGE_ASSETS_DIR, 'page.css'), 'utf8');
    expect(css).not.toMatch(/@import|@font-face|url\(/i);
    expect(css).toMatch(/:focus-visible/);
    expect(css).toMatch(/prefers-reduced-motion: reduce/);
    expect(gzipSync(css).length).toBeLessThan(5_000);
  });
});
