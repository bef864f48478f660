import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../apps/api/src/openapi';
import { TestApi } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}

/**
 * Redocly's findings on `document`, under the project's redocly.yaml (what `npm run lint` runs on
 * docs/openapi.json). The CLI exits 1 on an error; its JSON report is on stdout either way.
 */
async function lint(document: object, dir: string): Promise<LintProblem[]> {
  const file = join(dir, `openapi-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(document));
  const args = [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json'];
  const stdout = await promisify(execFile)(process.execPath, args, { cwd: ROOT })
    .then((result) => result.stdout)
    .catch((error: { stdout?: string }) => error.stdout ?? '');
  const report = JSON.parse(stdout) as { problems: LintProblem[] };
  return report.problems;
}

describe('OpenAPI document under Redocly recommended rules', () => {
  let api: TestApi;
  let dir: string;

  beforeAll(async () => {
    api = await TestApi.start();
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await api.close();
  });

  it('has no error or warning: every example matches its schema, every operation has security', async () => {
    const problems = await lint(buildOpenApiDocument(api.app), dir);
    const readable = problems.map(
      (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(readable).toEqual([]);
  });

  it('reports a response example that does not match its schema (the check can fail)', async () => {
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(api.app)));
    const queued = document.paths['/v1/webhook-endpoints/{id}/test'].post.responses['202'];
    const example = queued.content['application/json'].example;
    expect(example.sequence).toBe(2);
    example.sequence = '2'; // a string where the Event schema says a number
    const problems = await lint(document, dir);
    expect(problems).toEqual([
      expect.objectContaining({
        ruleId: 'no-invalid-media-type-examples',
        message: expect.stringContaining('sequence'),
      }),
    ]);
  });
});
