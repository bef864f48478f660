import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flags } from './node-flags.json';

/*
 * node-flags.json is the one list of the API's node flags. The commands that cannot read it carry
 * the flags literally: each command there that starts the API must carry exactly that list.
 */

const ROOT = join(__dirname, '..', '..');
const API_MAIN = 'dist/apps/api/apps/api/src/main.js';
// `node`, then flags (`--name` or `--name=value`), then the API's entry point; separated by white
// space, or by quotes and commas in an exec-form array (["node", "--flag", "dist/..."]).
const SEPARATOR = `[\\s"',]+`;
const API_COMMAND = new RegExp(
  `\\bnode((?:${SEPARATOR}--[^\\s"',]+)*)${SEPARATOR}${API_MAIN.replace(/\./g, '\\.')}`,
);

/** The flags of each line of `text` that names the API's entry point (null: no `node` command). */
function apiCommandFlags(text: string): (string[] | null)[] {
  return text
    .split('\n')
    .filter((line) => line.includes(API_MAIN))
    .map((line) => {
      const command = API_COMMAND.exec(line);
      return command ? command[1].split(new RegExp(SEPARATOR)).filter(Boolean) : null;
    });
}

describe("the API's node flags (apps/api/node-flags.json)", () => {
  it('are options this node accepts', () => {
    expect(flags.length).toBeGreaterThan(0);
    const result = spawnSync(process.execPath, [...flags, '-e', ''], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  // How many commands start the API in each file that cannot read the list: Dockerfile and
  // compose.yaml run the `api` role of scripts/docker-entrypoint.sh and start none of their own.
  // The README and the decision quote the command, so they cannot go stale either.
  it.each([
    ['package.json', 1], // start:api (npm start and npm run demo run it)
    ['scripts/docker-entrypoint.sh', 1], // the `api` role
    ['Dockerfile', 0],
    ['compose.yaml', 0],
    ['README.md', 1],
    ['docs/decisions.md', 1],
  ])('%s: %i command(s) starting the API, each with exactly these flags', (file, commands) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(apiCommandFlags(text)).toEqual(Array(commands).fill(flags));
  });
});
