import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAppConfig } from '../libs/common/src/config/app-config';
import { ensureDatabaseExists } from '../libs/database/src/migrate';
import { createApiApp } from '../apps/api/src/create-api-app';
import { buildOpenApiDocument } from '../apps/api/src/openapi';

// Regenerates docs/openapi.json from the code; the e2e suite fails when the two differ.
async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  // The app connects at start; on a fresh machine the database may not exist yet.
  await ensureDatabaseExists(loadAppConfig().databaseUrl);
  const app = await createApiApp();
  await app.init();
  const document = buildOpenApiDocument(app);
  writeFileSync(
    join(__dirname, '..', 'docs', 'openapi.json'),
    JSON.stringify(document, null, 2) + '\n',
  );
  await app.close();
  console.log('docs/openapi.json written');
}

void main();
