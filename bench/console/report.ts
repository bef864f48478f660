import type { Quietness } from '../kit/report';
import { percentile } from '../kit/stats';
import type { firstLoad } from './browser';
import type { ConsoleReport } from './run';

const round = (value: number) => Math.round(value * 10) / 10;

export function summary(values: number[]) {
  return {
    median_ms: round(percentile(values, 50)),
    p95_ms: round(percentile(values, 95)),
    max_ms: round(Math.max(...values)),
  };
}

/** The JavaScript of a load: files, bytes on the wire, decoded and gzipped here. */
export function totals(files: Awaited<ReturnType<typeof firstLoad>>['javascript']) {
  const sum = (pick: (file: (typeof files)[number]) => number) =>
    files.reduce((total, file) => total + pick(file), 0);
  return {
    files: files.length,
    transferred_bytes: sum((file) => file.transferred),
    decoded_bytes: sum((file) => file.decoded),
    gzipped_bytes: sum((file) => file.gzipped),
    // Content-Encoding values the API answered the JavaScript with ('none' when it sent it raw).
    encodings: [...new Set(files.map((file) => file.contentEncoding ?? 'none'))],
  };
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const load = (quiet: Quietness) => quiet.loadAverage.map((value) => value.toFixed(2)).join(' ');

/** The run as Markdown: budgets first, then the tables. */
export function markdownReport(report: ConsoleReport): string {
  const js = report.first_load.javascript;
  const signedIn = report.signed_in_first_load.javascript;
  const budget = report.budgets.javascript_gzipped_bytes;
  // The compression middleware leaves files under 1 kB as they are: one 'none' is expected.
  const compressed = js.encodings.some((encoding) => encoding !== 'none');
  const lines = [
    `# bench:console, ${report.date}`,
    '',
    `\`${report.command}\` (git ${report.git ?? '?'}); ${report.settings.sessions.toLocaleString('en-US')} ` +
      `sessions of one merchant; ${report.settings.runs} timed runs each (one before them discarded).`,
    `Machine: ${report.machine.cores} cores, ${report.machine.cpu}; load average ` +
      `${load(report.uptime.start)} at the start, ${load(report.uptime.end)} at the end.`,
    ...report.warnings.map((warning) => `WARNING: ${warning}`),
    '',
    '## First load of /console (signed out: the sign-in form), cold cache',
    '',
    `| | files | as transferred | decoded | gzipped (zlib level 6) | budget ${kB(budget)} gzipped |`,
    '| --- | --: | --: | --: | --: | --- |',
    `| signed out | ${js.files} | ${kB(js.transferred_bytes)} (${js.encodings.join(', ')}) | ` +
      `${kB(js.decoded_bytes)} | ${kB(js.gzipped_bytes)} | ${verdict(js.gzipped_bytes <= budget)} |`,
    `| signed in (Home) | ${signedIn.files} | ${kB(signedIn.transferred_bytes)} (${signedIn.encodings.join(', ')}) | ` +
      `${kB(signedIn.decoded_bytes)} | ${kB(signedIn.gzipped_bytes)} | ${verdict(signedIn.gzipped_bytes <= budget)} |`,
    '',
    compressed
      ? 'The API compresses the JavaScript (files under 1 kB are sent as they are): "as ' +
        'transferred" is what the wire carried.'
      : 'The API sends the JavaScript uncompressed (no Content-Encoding although Chromium asks ' +
        'for gzip): "gzipped" is each file gzipped with zlib here, what a compressing proxy would send.',
    '',
    `| first load | median ms | p95 ms | max ms |`,
    '| --- | --: | --: | --: |',
    ...(
      [
        ['sign-in form interactive', report.first_load.interactive],
        ['DOMContentLoaded', report.first_load.dom_content_loaded],
        ['load event', report.first_load.load],
      ] as const
    ).map(([name, s]) => `| ${name} | ${s.median_ms} | ${s.p95_ms} | ${s.max_ms} |`),
    '',
    `Signed in, a cold load of /console showed Home after ${report.signed_in_first_load.home_ms} ms.`,
    '',
    `## Payments: 100 sessions (budget < ${report.budgets.list_render_ms} ms)`,
    '',
    '| measurement | render median ms | render p95 ms | max ms | API median ms | API p95 ms | API first byte median ms | response to 100th row median ms | rows | budget |',
    '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --- |',
    ...report.lists.map(
      (list) =>
        `| ${list.name}: ${list.what} | ${list.render.median_ms} | ${list.render.p95_ms} | ` +
        `${list.render.max_ms} | ${list.api?.median_ms ?? '?'} | ${list.api?.p95_ms ?? '?'} | ` +
        `${list.api_first_byte?.median_ms ?? '?'} | ${list.after_response?.median_ms ?? '?'} | ` +
        `${list.rows} | ` +
        `${verdict(list.render.p95_ms < report.budgets.list_render_ms)} |`,
    ),
    '',
    'List queries (the last run of each):',
    '',
    ...report.lists.map(
      (list) => `- ${list.name}: \`GET /v1/checkout/sessions${list.query ?? ''}\``,
    ),
    '',
  ];
  return lines.join('\n');
}
