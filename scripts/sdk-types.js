// `npm run sdk:generate`: regenerates the SDK's types (packages/sdk/src/generated/openapi.ts) from
// docs/openapi.json. With --check (run by `npm run lint`) it writes nothing and fails when the
// committed file differs from a fresh generation, so the published client never drifts from the
// document. Run it after `npm run openapi`.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
// `--spec <file>` reads another document (e.g. the committed one, while docs/openapi.json has
// uncommitted changes).
const specArgument = process.argv.indexOf('--spec');
const SPEC = specArgument > 0 ? process.argv[specArgument + 1] : join(ROOT, 'docs', 'openapi.json');
const TARGET = join(ROOT, 'packages', 'sdk', 'src', 'generated', 'openapi.ts');
const RELATIVE_TARGET = 'packages/sdk/src/generated/openapi.ts';

/**
 * The document as the SDK's callers see it: the client sends an Idempotency-Key on every POST
 * (a fresh UUID unless the caller passes one), so the header is optional to them even on the
 * routes where the API requires it.
 */
function sdkDocument() {
  const document = JSON.parse(readFileSync(SPEC, 'utf8'));
  for (const item of Object.values(document.paths)) {
    for (const parameter of item.post?.parameters ?? []) {
      if (parameter.in === 'header' && parameter.name === 'Idempotency-Key') {
        parameter.required = false;
      }
    }
  }
  return document;
}

function generate() {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  try {
    const spec = join(dir, 'openapi.json');
    writeFileSync(spec, JSON.stringify(sdkDocument()));
    // A .ts file, not a .d.ts: tsc copies .d.ts sources into no output, and the SDK's dist must
    // carry the types its declarations import.
    const out = join(dir, 'openapi.ts');
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
        spec,
        '--output',
        out,
        // A field with a default is optional to the caller (the document's `required` lists say
        // what a response always carries); by default openapi-typescript makes it required, so
        // creating a sub-merchant would demand `status`.
        '--default-non-nullable',
        'false',
      ],
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
