// The baseline of bench/api/run.ts: a bare express 5 + pg process doing what the API's hot paths
// do at the database, and nothing else (no Nest, no validation, no auth, no idempotency, no logs).
//   POST /v1/checkout/sessions      one INSERT of one checkout_sessions row (same columns and
//                                   value shapes as the API's insert), answers 201 + small JSON
//   GET  /v1/checkout/sessions/:id  one SELECT by primary key, answers 200 + the row
// Env: PORT, DATABASE_URL, DATABASE_POOL_SIZE (20, as the app), BENCH_TEMPLATE_ID (a session the
// API created; its merchant, amount, contract, rate and key fingerprint are reused).
import { randomBytes } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE || 20),
});

// Same column list and placeholder shape as CheckoutSessionsRepository.insertWithAddress (plus
// sub_merchant_id, NULL here as in the API's run, once the schema has it).
function insertStatement(withSubMerchant: boolean): string {
  return `INSERT INTO checkout_sessions (id, merchant_id, livemode, status, amount, currency,
    network, chain_family, currency_contract, pricing_amount, pricing_currency, exchange_rate,
    client_reference_id, success_url, cancel_url, expires_at, key_fingerprint, pay_address,
    derivation_index, fee_percent, fee_fixed${withSubMerchant ? ', sub_merchant_id' : ''})
    VALUES ($1, $2, $3, 'Pending', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
      now() + make_interval(mins => $15), $16, $17, $18, $19, $20${withSubMerchant ? ', $21' : ''})
    RETURNING id, status, created_at, expires_at`;
}

// Far above any index the pool hands out, so the bare rows never collide with real ones.
let nextDerivationIndex = 1_500_000_000;

async function main() {
  const { rows } = await pool.query('SELECT * FROM checkout_sessions WHERE id = $1', [
    process.env.BENCH_TEMPLATE_ID,
  ]);
  const template = rows[0];
  if (!template) throw new Error(`No template session ${process.env.BENCH_TEMPLATE_ID}.`);
  const withSubMerchant = 'sub_merchant_id' in template;
  const insertSession = insertStatement(withSubMerchant);

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '64kb' }));

  app.get('/health', (_request, response) => {
    response.json({ status: 'ok' });
  });

  app.post('/v1/checkout/sessions', async (request, response) => {
    const body = request.body as Record<string, string | undefined>;
    const payAddress = `Tbare${randomBytes(15).toString('hex')}`;
    const values: unknown[] = [
      `cs_${randomBytes(16).toString('base64url').slice(0, 22)}`,
      template.merchant_id,
      template.livemode,
      template.amount,
      body.currency,
      body.network,
      template.chain_family,
      template.currency_contract,
      body.pricing_amount,
      body.pricing_currency,
      template.exchange_rate,
      body.client_reference_id ?? null,
      body.success_url ?? null,
      body.cancel_url ?? null,
      60,
      template.key_fingerprint,
      payAddress,
      nextDerivationIndex++,
    ];
    // The fee rule is stored on each session when it is created (the API copies the merchant's).
    values.push(template.fee_percent, template.fee_fixed);
    if (withSubMerchant) values.push(template.sub_merchant_id);
    const inserted = await pool.query(insertSession, values);
    response.status(201).json({ ...inserted.rows[0], pay_address: payAddress });
  });

  app.get('/v1/checkout/sessions/:id', async (request, response) => {
    const found = await pool.query('SELECT * FROM checkout_sessions WHERE id = $1', [
      request.params.id,
    ]);
    if (!found.rows[0]) {
      response.status(404).json({ error: 'not_found' });
      return;
    }
    response.json(found.rows[0]);
  });

  const server = app.listen(Number(process.env.PORT), (error?: Error) => {
    if (error) throw error;
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    pool.end().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
