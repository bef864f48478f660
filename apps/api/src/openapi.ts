import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_VERSION } from '@app/common';

const DESCRIPTION = `Accept and send USDT and USDC on TRON and EVM networks.

**Authentication.** Every request carries \`Authorization: Bearer <API key>\`. Sandbox keys start with
\`sk_test_\` and work only against the sandbox; production keys start with \`sk_live_\`.

**Amounts** are decimal strings (\`"49.99"\`), never JSON numbers.

**Errors** share one envelope: \`{"error": {"type", "code", "message", "param", "request_id"}}\`.
Branch on \`code\`; quote \`request_id\` (also the \`Request-Id\` header) to support.

**Lists** are bare JSON arrays, newest first; \`X-Total-Count\` (exact up to 1,000 matches, else
\`X-Total-Count-At-Least\`; \`include_total=true\` always counts) and \`Link\` headers carry the total
and the neighbouring pages. Page with \`page\` (first 10,000 rows) or the \`starting_after\` cursor.

**Idempotency.** Send \`Idempotency-Key\` on creating requests to retry safely for 24 hours.

**Webhooks.** Register an endpoint (\`POST /v1/webhook-endpoints\`) and every event is POSTed to it,
signed per Standard Webhooks and Stripe style; see that operation's callback for the request you
receive, and \`GET /v1/events\` for the same events as a list.

**Versioning.** \`/v1\` only grows: new routes, optional fields, response fields, enum values and
event types may appear at any time, so ignore what you do not know. Anything else comes as a new
version beside \`/v1\`, which keeps working for at least 12 months after it is announced. Every
response carries \`API-Version\` (today \`${API_VERSION}\`), the revision of the contract served.`;

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Stablecoin Payments API')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_test_... or sk_live_...' })
    .addServer('/', 'This environment')
    .build();
  // package.json's `UNLICENSED`, said so a reader understands it: the document describes this
  // service for its merchants and grants no licence; no URL, as there is no published terms page
  // (docs/decisions.md, "The OpenAPI document's licence").
  config.info.license = { name: 'Proprietary' };
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  describeWebhookCallback(document);
  return document;
}

const signatureHeader = (name: string, description: string, example: string) => ({
  name,
  in: 'header' as const,
  required: true,
  description,
  schema: { type: 'string' as const, example },
});

/**
 * The request a merchant's endpoint receives, as an OpenAPI callback of endpoint creation, so a
 * client generator and Swagger UI show the webhook's body and signature headers.
 */
function describeWebhookCallback(document: OpenAPIObject): void {
  const create = document.paths['/v1/webhook-endpoints']?.post;
  if (!create) return;
  create.callbacks = {
    event: {
      '{$request.body#/url}': {
        post: {
          summary: 'An event, sent to your endpoint',
          // Sent by this service, not called with an API key: authenticity is the signature headers.
          security: [],
          description:
            'Verify a signature over the raw body, answer 2xx within 15 s, then process. Retried ' +
            'with backoff for 3 days on anything else; the same `webhook-id` on every retry.',
          parameters: [
            signatureHeader(
              'webhook-id',
              'The event id; dedupe on it.',
              'evt_5Jd8Qm2LxW9cTz4Rb8VnK1',
            ),
            signatureHeader('webhook-timestamp', 'Unix seconds of this attempt.', '1795428930'),
            signatureHeader(
              'webhook-signature',
              'Space-separated `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`, one per valid secret.',
              'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
            ),
            signatureHeader(
              'x-signature',
              '`t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (one `v1` per valid secret).',
              't=1795428930,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
          },
          responses: {
            '200': { description: 'Any 2xx: received.' },
            '410': { description: 'Gone: the endpoint is disabled and receives nothing more.' },
          },
        },
      },
    },
  };
}

export function mountSwaggerUi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  });
}
