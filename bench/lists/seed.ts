/**
 * Bulk rows for the list benchmark and the list plan test (test/checkout/list-plans.e2e-spec.ts), written
 * with generate_series, one statement per table (or per slice of a large seed): a million
 * sessions take about three minutes on two cores.
 * Shapes follow production: mixed-case EVM addresses (checksummed), TRON base58-like ones, a
 * tenth of the sessions with a transaction, several sessions per second (ties in created_at, and
 * microseconds that a JS Date would cut).
 */

/** Anything that runs SQL with bound parameters (a pg Client or TypeORM's DataSource). */
export interface SeedRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

const SEED_NETWORKS = 'TRON ETHEREUM BSC POLYGON ARBITRUM BASE OPTIMISM'.split(' ');

interface Common {
  merchantId: string;
  subMerchantId?: string | null;
  count: number;
  /** The first n (default 1): a large seed is written in slices, each one statement. */
  first?: number;
  /** Ids are `${idPrefix}${n}` for n = first..first + count - 1: n = 1 is the newest. */
  idPrefix: string;
  /** created_at of row 1; each later row is older (three rows share each second). */
  newest: Date;
}

// Every statement binds the same six values, named (and typed) once here.
const SEED = `WITH seed AS (SELECT $1::text AS prefix, $2::text AS merchant_id,
  $3::text AS sub_merchant_id, $4::timestamptz AS newest, $5::text[] AS networks,
  $6::int AS first, $7::int AS last)`;
// Three rows a second, 7 µs past the second: ties to break by id, and precision to keep.
const CREATED_AT = `seed.newest - (g / 3) * interval '1 second' - interval '7 microseconds'`;
const NETWORK = `seed.networks[1 + g % 7]`;
const FAMILY = `CASE WHEN g % 7 = 0 THEN 'TRON' ELSE 'EVM' END`;
const HEX_64 = (seed: string) => `md5(${seed} || 'a') || md5(${seed} || 'b')`;
const EVM_ADDRESS = (seed: string) =>
  `'0x' || translate(substr(md5(${seed}) || md5(${seed} || 'x'), 1, 40), 'abc', 'ABC')`;
const ADDRESS = (seed: string) =>
  `CASE WHEN g % 7 = 0 THEN 'T' || translate(substr(md5(${seed}) || md5(${seed} || 't'), 1, 33), '0abc', 'zXYZ')
        ELSE ${EVM_ADDRESS(seed)} END`;
const TX_HASH = (seed: string) =>
  `CASE WHEN g % 7 = 0 THEN ${HEX_64(seed)} ELSE '0x' || ${HEX_64(seed)} END`;

function seedParams(seed: Common): unknown[] {
  return [
    seed.idPrefix,
    seed.merchantId,
    seed.subMerchantId ?? null,
    seed.newest,
    SEED_NETWORKS,
    seed.first ?? 1,
    (seed.first ?? 1) + seed.count - 1,
  ];
}

/**
 * Sessions: 60 % Expired, 30 % Paid, 5 % Pending, 5 % Underpaid; one network in seven TRON; a
 * transaction on every tenth (a Paid or Underpaid one has it, the way deposits do).
 */
export async function seedSessions(runner: SeedRunner, seed: Common): Promise<void> {
  const params = seedParams(seed);
  await runner.query(
    `${SEED}
     INSERT INTO checkout_sessions (id, merchant_id, sub_merchant_id, livemode, status, amount,
       amount_received, currency, network, chain_family, currency_contract, pay_address,
       key_fingerprint, derivation_index, pricing_amount, pricing_currency, exchange_rate,
       fee_percent, fee_fixed, client_reference_id, created_at, expires_at, updated_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.sub_merchant_id, false,
            CASE WHEN g % 20 < 12 THEN 'Expired' WHEN g % 20 < 18 THEN 'Paid'
                 WHEN g % 20 = 18 THEN 'Pending' ELSE 'Underpaid' END,
            10, 0, 'USDT', ${NETWORK}, ${FAMILY}, 'contract', ${ADDRESS(`seed.prefix || g`)},
            'seed', g, 10, 'USD', 1, 1, 0, 'order-' || g, ${CREATED_AT},
            CASE WHEN g % 20 = 18 THEN now() + interval '1 day'
                 ELSE ${CREATED_AT} + interval '30 minutes' END,
            ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g`,
    params,
  );
  await runner.query(
    `${SEED}
     INSERT INTO session_transactions (id, session_id, network, currency, token_contract,
       from_address, to_address, tx_hash, log_index, amount, amount_base_units, status,
       block_number, block_hash, created_at, updated_at)
     SELECT 'ctx_' || seed.prefix || g, seed.prefix || g, ${NETWORK}, 'USDT', 'contract', 'sender',
            'receiver', ${TX_HASH(`seed.prefix || g`)}, 0, 10, 10000000, 'Confirmed', g, 'block',
            ${CREATED_AT}, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g
      WHERE g % 10 = 0`,
    params,
  );
}

/** Payouts: 80 % Completed (with a hash), 10 % Failed, 5 % Pending, 5 % Rejected; 997 destinations. */
export async function seedPayouts(runner: SeedRunner, seed: Common): Promise<void> {
  await runner.query(
    `${SEED}
     INSERT INTO payouts (id, merchant_id, sub_merchant_id, livemode, status, amount, fee,
       net_amount, fee_percent, fee_fixed, currency, network, chain_family, token_contract,
       token_decimals, to_address, tx_hash, completed_at, created_at, updated_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.sub_merchant_id, false, status, 10, 0.1,
            9.9, 1, 0, 'USDT', ${NETWORK}, ${FAMILY},
            'contract', 6, ${ADDRESS(`'dest' || (g % 997)`)},
            CASE WHEN status = 'Completed' THEN ${TX_HASH(`seed.prefix || g`)} END,
            CASE WHEN status = 'Completed' THEN ${CREATED_AT} END, ${CREATED_AT}, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g,
            LATERAL (SELECT CASE WHEN g % 20 < 16 THEN 'Completed' WHEN g % 20 < 18 THEN 'Failed'
                                 WHEN g % 20 = 18 THEN 'Pending' ELSE 'Rejected' END AS status) s`,
    seedParams(seed),
  );
}

/** Events: every type in turn, two per object. */
export async function seedEvents(
  runner: SeedRunner,
  seed: Common & { types: readonly string[] },
): Promise<void> {
  await runner.query(
    `${SEED}
     INSERT INTO events (id, merchant_id, sub_merchant_id, livemode, type, object_type, object_id,
       sequence, data, created_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.sub_merchant_id, false,
            ($8::text[])[1 + g % cardinality($8::text[])], 'checkout.session',
            seed.prefix || 'obj' || (g / 2), 1 + g % 2, '{}'::json, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g`,
    [...seedParams(seed), seed.types],
  );
}

/** Unmatched transfers of sessions `${sessionPrefix}${n}` (those must exist). */
export async function seedUnmatchedTransfers(
  runner: SeedRunner,
  seed: Common & { sessionPrefix: string },
): Promise<void> {
  await runner.query(
    `${SEED}
     INSERT INTO unmatched_transfers (id, merchant_id, sub_merchant_id, session_id, livemode,
       reason, network, currency, token_contract, from_address, to_address, tx_hash, log_index,
       amount, amount_base_units, block_number, block_hash, created_at, updated_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.sub_merchant_id, $8::text || g, false,
            (ARRAY['wrong_network', 'wrong_token', 'session_already_paid'])[1 + g % 3],
            ${NETWORK}, 'USDC', 'contract', 'sender', 'receiver', ${TX_HASH(`seed.prefix || g`)}, 0,
            1, 1000000, g, 'block', ${CREATED_AT}, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g`,
    [...seedParams(seed), seed.sessionPrefix],
  );
}

/** Sub-merchants of a PSP: codes `${idPrefix}-n`, every tenth disabled. */
export async function seedSubMerchants(runner: SeedRunner, seed: Common): Promise<void> {
  await runner.query(
    `${SEED}
     INSERT INTO sub_merchants (id, merchant_id, code, name, status, email, livemode, created_at,
       updated_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.prefix || '-' || g, 'Shop ' || g,
            CASE WHEN g % 10 = 0 THEN 'disabled' ELSE 'active' END,
            'shop' || g || '@example.com', false, ${CREATED_AT}, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g`,
    seedParams(seed),
  );
}

/** Webhook endpoints (bypassing the per-merchant cap of the API: only a table size matters). */
export async function seedWebhookEndpoints(runner: SeedRunner, seed: Common): Promise<void> {
  await runner.query(
    `${SEED}
     INSERT INTO webhook_endpoints (id, merchant_id, sub_merchant_id, livemode, url, secret,
       created_at, updated_at)
     SELECT seed.prefix || g, seed.merchant_id, seed.sub_merchant_id, false,
            'https://example.com/hooks/' || g, 'whsec_seed',
            ${CREATED_AT}, ${CREATED_AT}
       FROM seed, generate_series(seed.first, seed.last) g`,
    seedParams(seed),
  );
}
