// npx ts-node --transpile-only bench/api/profile-summary.ts <file.cpuprofile> [top]
// Self time of a V8 CPU profile (npm run bench:api -- --cpu-prof) grouped three ways: by package
// (or by our own source folder), by function, and inclusive time of our own functions.
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error(
    'Usage: npx ts-node --transpile-only bench/api/profile-summary.ts <file.cpuprofile> [top]',
  );
  process.exit(2);
}
const top = Number(topArgument || 25);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;

const nodes = new Map(profile.nodes.map((entry) => [entry.id, entry]));
const node = (id: number): ProfileNode => nodes.get(id) as ProfileNode;
const parents = new Map<number, number>();
for (const entry of profile.nodes) {
  for (const child of entry.children ?? []) parents.set(child, entry.id);
}

// Sample i lasted timeDeltas[i + 1] microseconds (the last one is unknown: count it as 0).
const selfTime = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index + 1] ?? 0;
  selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
  total += delta;
});

function area(url: string): string {
  if (!url) return '(native / V8)';
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1];
  if (url.startsWith('node:')) return 'node core';
  const ownMatch = /dist\/apps\/[^/]+\/((?:apps|libs)\/[^/]+)/.exec(url);
  if (ownMatch) return ownMatch[1];
  return path.basename(url);
}

function label(node: ProfileNode): string {
  const frame = node.callFrame;
  const name = frame.functionName || '(anonymous)';
  const where = frame.url
    ? `${area(frame.url)}:${path.basename(frame.url)}:${frame.lineNumber + 1}`
    : '';
  return where ? `${name}  ${where}` : name;
}

function add(map: Map<string, number>, key: string, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

// Native and Node-core frames (socket writes, hashing, GC is left alone) are charged to the first
// package or source frame below them: a writev under pg's Connection counts for pg.
function owner(id: number): string {
  for (
    let current: number | undefined = id;
    current !== undefined;
    current = parents.get(current)
  ) {
    const url = node(current).callFrame.url;
    if (url && !url.startsWith('node:')) return area(url);
  }
  return area(node(id).callFrame.url);
}

const byArea = new Map<string, number>();
const byOwner = new Map<string, number>();
const byFunction = new Map<string, number>();
const inclusiveOwn = new Map<string, number>();
for (const [id, time] of selfTime) {
  const sampled = node(id);
  add(byArea, area(sampled.callFrame.url), time);
  const special = ['(idle)', '(garbage collector)', '(program)'].includes(
    sampled.callFrame.functionName,
  );
  add(byOwner, special ? sampled.callFrame.functionName : owner(id), time);
  add(byFunction, label(sampled), time);
  // Inclusive time of our own code: charge every distinct own frame on the stack once.
  const seen = new Set<string>();
  for (
    let current: number | undefined = id;
    current !== undefined;
    current = parents.get(current)
  ) {
    const frame = node(current).callFrame;
    if (!/dist\/apps\//.test(frame.url)) continue;
    const key = label(node(current));
    if (!seen.has(key)) {
      seen.add(key);
      add(inclusiveOwn, key, time);
    }
  }
}

function print(title: string, map: Map<string, number>): void {
  console.log(`\n${title}`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, time] of rows) {
    const share = ((time / total) * 100).toFixed(1).padStart(5);
    console.log(`${share}%  ${(time / 1000).toFixed(0).padStart(7)} ms  ${key}`);
  }
}

console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('Self time by package / source folder', byArea);
print('Self time charged to the calling package (native and node core included)', byOwner);
print('Self time by function', byFunction);
print('Inclusive time of our own functions', inclusiveOwn);
