// Adds lockfile entries for optional platform packages (darwin, win32, arm...) that this
// machine's npm registry mirror does not serve: npm leaves them out of package-lock.json, and
// `npm ci` then refuses the lockfile as out of sync. Each entry carries the os/cpu/libc its name
// declares, so npm skips it on every other platform without fetching it.
// Run after any `npm install` that changes dependencies: node scripts/complete-lockfile.js
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const LOCKFILE = join(__dirname, '..', 'package-lock.json');
const OPERATING_SYSTEMS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPUS = [
  ['amd64', 'x64'],
  ['x64', 'x64'],
  ['arm64', 'arm64'],
  ['arm', 'arm'],
  ['ia32', 'ia32'],
  ['loong64', 'loong64'],
  ['ppc64', 'ppc64'],
  ['riscv64', 'riscv64'],
  ['s390x', 's390x'],
];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OPERATING_SYSTEMS.find((candidate) => parts.includes(candidate));
  const cpu = CPUS.find(([token]) => parts.includes(token))?.[1];
  if (!os || !cpu) return null;
  const last = parts[parts.length - 1];
  const libc = /musl/.test(last) ? 'musl' : /gnu/.test(last) ? 'glibc' : undefined;
  return { os, cpu, libc };
}

const lock = JSON.parse(readFileSync(LOCKFILE, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] || !path) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    packages[key] = {
      version,
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(LOCKFILE, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: ${added} optional platform entries added`);
