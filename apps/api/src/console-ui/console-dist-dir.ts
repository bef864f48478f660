import { existsSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Where `npm run console:build` writes the console (apps/console/vite.config.mts): dist/console at
 * the repository root. From the sources (ts-node, Jest) that root is four folders up; from the
 * build (dist/apps/api/apps/api/src/console-ui) seven, and in the Docker image the same layout
 * under /app. The first candidate holding an index.html wins.
 */
const CANDIDATES = [
  join(__dirname, '..', '..', '..', '..', 'dist', 'console'),
  join(__dirname, '..', '..', '..', '..', '..', '..', '..', 'dist', 'console'),
];

export function findConsoleDistDir(): string | null {
  return CANDIDATES.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}
