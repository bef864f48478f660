import { spawn } from 'node:child_process';
import { timestamp } from '../deposits/clock';
import { CLI_MAIN, ROOT } from './settings';

/*
 * The operator CLI, run without blocking this process. bench/deposits' runCli is synchronous: while
 * it waits, nothing here reads anvil's output pipe, anvil blocks writing its request log, and the
 * very command that asks anvil something times out.
 */

export interface CliResult {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const startedAt = timestamp();
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) =>
      resolve({ ms: Math.round(timestamp() - startedAt), status, stdout, stderr }),
    );
  });
}

/** The command's JSON answer (its last stdout line); a failure throws with its stderr. */
export async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await cli(args, env);
  if (result.status !== 0) {
    throw new Error(`cli ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  }
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? 'null') as T;
}
