import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

const DESCRIPTION = `Accept and send USDT and USDC on TRON and EVM networks.

**Authentication.** Every request carries \`Authorization: Bearer <API key>\`. Sandbox keys start with
\`sk_test_\` and work only against the sandbox; production keys start with \`sk_live_\`.

**Amounts** are decimal strings (\`"49.99"\`), never JSON numbers.

**Errors** share one envelope: \`{"error": {"type", "code", "message", "param", "request_id"}}\`.
Branch on \`code\`; quote \`request_id\` (also the \`Request-Id\` header) to support.

**Lists** are bare JSON arrays, newest first; \`X-Total-Count\` and \`Link\` headers carry the total and
the neighbouring pages.

**Idempotency.** Send \`Idempotency-Key\` on creating requests to retry safely for 24 hours.`;

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Stablecoin Payments API')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_test_... or sk_live_...' })
    .addServer('/', 'This environment')
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
}

export function mountSwaggerUi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  });
}
