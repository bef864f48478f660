// Prints one trace of a span export (TRACE_EXPORT_FILE of test/platform/tracing.e2e-spec.ts) as a tree:
//   node scripts/trace-listing.js spans.json <trace id> [--all]
// Database and Redis spans are counted under their parent unless --all is given.
const { readFileSync } = require('node:fs');

const [file, traceId, flag] = process.argv.slice(2);
if (!file || !traceId) {
  console.error('usage: node scripts/trace-listing.js spans.json <trace id> [--all]');
  process.exit(2);
}
const spans = JSON.parse(readFileSync(file, 'utf8')).filter((span) => span.traceId === traceId);
const start = Math.min(...spans.map((span) => Date.parse(span.start)));
const ids = new Set(spans.map((span) => span.spanId));
const children = new Map();
for (const span of spans) {
  const parent = ids.has(span.parentSpanId) ? span.parentSpanId : null;
  children.set(parent, [...(children.get(parent) ?? []), span]);
}
const storage = (span) =>
  /^(pg|pg-pool|pg\.query)[.:]|^(evalsha|get|set|zadd|lpush|brpoplpush|multi|exec)\b/.test(
    span.name,
  );
const SHOWN = [
  'http.route',
  'http.response.status_code',
  'http.status_code',
  'url.full',
  'event.type',
  'payout.id',
  'rpc.method',
  'chain.network',
  'express.type',
];

function print(parent, depth) {
  const spansHere = (children.get(parent) ?? []).sort(
    (a, b) => Date.parse(a.start) - Date.parse(b.start),
  );
  const hidden = {};
  for (const span of spansHere) {
    if (!flag && storage(span) && !(children.get(span.spanId) ?? []).length) {
      const key = span.name.split(/\s+/)[0];
      hidden[key] = (hidden[key] ?? 0) + 1;
      continue;
    }
    const at = (Date.parse(span.start) - start).toString().padStart(6);
    const attributes = SHOWN.filter((name) => span.attributes[name] !== undefined)
      .map((name) => `${name}=${span.attributes[name]}`)
      .join(' ');
    console.log(
      `${at} ms ${String(span.durationMs).padStart(7)} ms  ${'  '.repeat(depth)}${span.name} [${span.kind}] ${attributes}`,
    );
    print(span.spanId, depth + 1);
  }
  const summary = Object.entries(hidden)
    .map(([name, count]) => `${count} × ${name}`)
    .join(', ');
  if (summary) console.log(`${''.padStart(22)}  ${'  '.repeat(depth)}(${summary})`);
}
console.log(`trace ${traceId}: ${spans.length} spans`);
print(null, 0);
