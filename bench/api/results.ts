import { printTable, type describeMachine } from '../kit/report';
import type { cpuPerRequest, Server, Summary } from './load';

// What one scenario measured, and the terminal table of all of them.

export type Measured = Summary & { cpu: ReturnType<typeof cpuPerRequest> };
export interface ScenarioResult {
  label: string;
  server: Server;
  warmup: Summary;
  measured: Measured;
  attempts: Measured[];
  checks: Record<string, number>;
}

const formatNumber = (value: number | string) =>
  typeof value === 'number' ? value.toLocaleString('en-US') : String(value);

export function printResults(
  results: Record<string, ScenarioResult>,
  ratios: Record<string, { baseline: string; ratio: number }>,
): void {
  console.log('');
  printTable([
    [
      ...['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs bare'],
      ...['CPU µs/req: server', 'worker', 'postgres', 'client', 'cores busy', 'other'],
    ],
    ...Object.entries(results).map(([name, { measured: m }]) => [
      name,
      formatNumber(m.requests_per_second),
      formatNumber(m.latency_ms.p50),
      formatNumber(m.latency_ms.p99),
      formatNumber(m.non_2xx),
      `${m.errors}${m.timeouts ? ` (${m.timeouts} timeouts)` : ''}`,
      ratios[name] ? `${ratios[name].ratio.toFixed(2)} of ${ratios[name].baseline}` : '',
      formatNumber(m.cpu.us_per_request.server ?? '?'),
      formatNumber(m.cpu.us_per_request.worker ?? '-'),
      formatNumber(m.cpu.us_per_request.postgres ?? '?'),
      formatNumber(m.cpu.us_per_request.client ?? '?'),
      m.cpu.cores_busy.toFixed(2),
      m.cpu.machine ? m.cpu.machine.other_cores.toFixed(2) : '?',
    ]),
  ]);
  console.log('');
  const width = Math.max('scenario'.length, ...Object.keys(results).map((name) => name.length));
  for (const [name, result] of Object.entries(results)) {
    console.log(`  ${name.padEnd(width)}  ${result.label}`);
  }
  console.log('');
}

// Machine line as bench:api always printed it: no chain.
export const machineLine = (machine: ReturnType<typeof describeMachine>) =>
  `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}; ` +
  `Node ${machine.node}; PostgreSQL ${machine.postgres}`;
