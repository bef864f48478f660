// `npm run cli -- <command>`: the operator CLI. Builds first when there is no build yet (fresh
// clone), so the command works on its own; build output goes to stderr, stdout stays pure JSON.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const ENTRY = join(ROOT, 'dist', 'apps', 'cli', 'apps', 'cli', 'src', 'main.js');

if (!existsSync(ENTRY)) {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const result = spawnSync(process.execPath, [ENTRY, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
