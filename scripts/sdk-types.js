// `npm run sdk:generate`: regenerates the SDK's types (packages/sdk/src/generated/openapi.ts) from
// docs/openapi.json. With --check (run by `npm run lint`) it writes nothing and fails when the
// committed file differs from a fresh generation, so the published client never drifts from the
// document. Run it after `npm run openapi`.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const SPEC = join(ROOT, 'docs', 'openapi.json');
const TARGET = join(ROOT, 'packages', 'sdk', 'src', 'generated', 'openapi.ts');
const RELATIVE_TARGET = 'packages/sdk/src/generated/openapi.ts';

function generate() {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  try {
    // A .ts file, not a .d.ts: tsc copies .d.ts sources into no output, and the SDK's dist must
    // carry the types its declarations import.
    const out = join(dir, 'openapi.ts');
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), SPEC, '--output', out],
      // In the temporary directory: a redocly.yaml at the root (for linting the document) would
      // otherwise be read by openapi-typescript as its own configuration.
      { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
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
      `${RELATIVE_TARGET} is out of date with docs/openapi.json: run \`npm run sdk:generate\`.`,
    );
    process.exit(1);
  }
} else {
  writeFileSync(TARGET, fresh);
}
