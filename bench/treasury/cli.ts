import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { timestamp } from '../kit/clock';
import { CLI_MAIN, ROOT } from '../kit/settings';

/*
 * The operator CLI, run without blocking this process. The kit's runCli is synchronous: while
 * it waits, nothing here reads anvil's output pipe, anvil blocks writing its request log, and the
 * very command that asks anvil something times out.
 */

export interface CliResult {
  ms: number;
  /** CPU time the command used (user + system), where GNU time is there to tell; else null. */
  cpuMs: number | null;
  status: number | null;
  stdout: string;
  stderr: string;
}

// GNU time reports the child's CPU time on a line of its own, marked, at the end of stderr: on a
// loaded machine the wall time mostly says how long the command waited for a core.
const TIME = '/usr/bin/time';
const CPU_MARK = 'bench-cpu-seconds';

/** `nodeArgs`: node's own options before the entry point (--cpu-prof). */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
): Promise<CliResult> {
  const startedAt = timestamp();
  const command = [process.execPath, ...nodeArgs, CLI_MAIN, ...args];
  const timed = existsSync(TIME);
  const child = timed
    ? spawn(TIME, ['-f', `${CPU_MARK} %U %S`, ...command], { cwd: ROOT, env })
    : spawn(command[0], command.slice(1), { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      const ms = Math.round(timestamp() - startedAt);
      const { cpuMs, rest } = cpuOf(stderr);
      resolve({ ms, cpuMs, status, stdout, stderr: rest });
    });
  });
}

function cpuOf(stderr: string): { cpuMs: number | null; rest: string } {
  const lines = stderr.split('\n');
  const index = lines.findIndex((line) => line.startsWith(CPU_MARK));
  if (index < 0) return { cpuMs: null, rest: stderr };
  const [user, system] = lines[index].slice(CPU_MARK.length).trim().split(/\s+/).map(Number);
  lines.splice(index, 1);
  return { cpuMs: Math.round((user + system) * 1000), rest: lines.join('\n') };
}

/** The command's JSON answer (its last stdout line); a failure throws with its stderr. */
export async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await cli(args, env);
  if (result.status !== 0) {
    throw new Error(`cli ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as T;
}
