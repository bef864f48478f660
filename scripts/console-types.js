// `npm run console:types`: regenerates the console's /v1 types (apps/console/src/api/v1-schema.d.ts)
// from docs/openapi.json. With --check (run by `npm run lint`) it writes nothing and fails when the
// committed file differs from a fresh generation, so the console never compiles against a stale API.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const SPEC = join(ROOT, 'docs', 'openapi.json');
const TARGET = join(ROOT, 'apps', 'console', 'src', 'api', 'v1-schema.d.ts');

function generate() {
  const dir = mkdtempSync(join(tmpdir(), 'console-types-'));
  try {
    const out = join(dir, 'v1-schema.d.ts');
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), SPEC, '--output', out],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fresh = generate();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(TARGET, 'utf8');
  } catch {
    // Missing counts as different.
  }
  if (committed !== fresh) {
    console.error(
      'apps/console/src/api/v1-schema.d.ts is out of date with docs/openapi.json: run `npm run console:types`.',
    );
    process.exit(1);
  }
} else {
  writeFileSync(TARGET, fresh);
}
