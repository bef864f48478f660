import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { MerchantsService } from '@app/auth';
import { SessionSettlementService } from '@app/checkout';
import { SessionFeeRule1764300000000 } from '../../libs/database/src/migrations/1764300000000-session-fee-rule';
import { insertSessionTransaction } from '../support/session-transactions';
import { TestApi, TestMerchant } from '../support/test-app';
import { CheckoutSession, createSession, readSession } from '../support/sessions-api';

/*
 * A session keeps the fee rule in force when it was created: a payment that arrives in parts, with
 * the merchant's rule changed in between, is charged on its whole total with the original rule,
 * and the ledger agrees. Transfers are written as confirmed and settled the way the watcher does.
 */
describe('The fee rule of a checkout session', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(async () => {
    await api?.close();
  });

  const setFeeRule = (merchant: TestMerchant, percent: string | null, fixed: string | null) =>
    api.app.get(MerchantsService).setFeeRule(merchant.id, percent, fixed);
  /** A confirmed transfer to the session, settled in its own transaction as the watcher does. */
  const pay = async (sessionId: string, amount: string) => {
    const transactionId = `ctx_${randomUUID().replace(/-/g, '')}`;
    await insertSessionTransaction(api.dataSource, {
      id: transactionId,
      sessionId,
      txHash: randomUUID().replace(/-/g, ''),
      amount,
    });
    await api.dataSource.transaction((manager) =>
      api.app
        .get(SessionSettlementService)
        .settle(manager, sessionId, [
          { transactionId, kind: 'confirmed', previousStatus: 'Pending' },
        ]),
    );
  };
  const available = async (merchant: TestMerchant) => {
    const { body } = await api.get('/v1/balances', merchant).expect(200);
    return body as Array<{ network: string; currency: string; available: string }>;
  };
  /** What the session's ledger entries add up to, per kind of account (debits positive). */
  const ledgerOf = async (sessionId: string) => {
    const rows: Array<{ kind: string; total: string }> = await api.dataSource.query(
      `SELECT split_part(l.account, ':', 1) AS kind, sum(l.amount) AS total
         FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE e.reference LIKE $1 GROUP BY 1 ORDER BY 1`,
      [`checkout_session:${sessionId}:%`],
    );
    return Object.fromEntries(rows.map((row) => [row.kind, new Decimal(row.total).toFixed()]));
  };
  const amounts = (session: CheckoutSession) => ({
    status: session.status,
    amount_received: session.amount_received,
    fee_amount: session.fee_amount,
    net_amount: session.net_amount,
  });

  it("charges a top-up after a rule change with the session's original rule, on the whole total", async () => {
    const merchant = await api.createMerchant();
    await setFeeRule(merchant, '2', '0.5');
    const session = await createSession(api, merchant, { pricing_amount: '100', network: 'TRON' });
    expect(session.amount).toBe('100');

    await pay(session.id, '40');
    expect(amounts(await readSession(api, merchant, session.id))).toEqual({
      status: 'Pending',
      amount_received: '40',
      fee_amount: '1.3', // 40 × 2 % + 0.5
      net_amount: '38.7',
    });

    await setFeeRule(merchant, '5', '1');
    await pay(session.id, '60');
    const paid = await readSession(api, merchant, session.id);
    expect(amounts(paid)).toEqual({
      status: 'Paid',
      amount_received: '100',
      fee_amount: '2.5', // 100 × 2 % + 0.5, not 100 × 5 % + 1
      net_amount: '97.5',
    });
    // The rule is internal: the public object has no new fields.
    expect(paid).not.toHaveProperty('fee_percent');
    expect(paid).not.toHaveProperty('fee_fixed');
    expect(await ledgerOf(session.id)).toEqual({
      deposits: '100',
      fees: '-2.5',
      merchant: '-97.5',
    });
    expect(await available(merchant)).toEqual([
      expect.objectContaining({ network: 'TRON', currency: 'USDT', available: '97.5' }),
    ]);

    // A session created after the change is charged with the new rule.
    const later = await createSession(api, merchant, { pricing_amount: '100', network: 'TRON' });
    await pay(later.id, '100');
    expect(amounts(await readSession(api, merchant, later.id))).toEqual({
      status: 'Paid',
      amount_received: '100',
      fee_amount: '6', // 100 × 5 % + 1
      net_amount: '94',
    });
    expect(await ledgerOf(later.id)).toEqual({ deposits: '100', fees: '-6', merchant: '-94' });
    expect(await available(merchant)).toEqual([
      expect.objectContaining({ network: 'TRON', currency: 'USDT', available: '191.5' }),
    ]);
  });

  it('keeps the configured default for a session created before the merchant had a rule', async () => {
    const merchant = await api.createMerchant();
    const session = await createSession(api, merchant, { pricing_amount: '10', network: 'TRON' });
    await pay(session.id, '4');
    // The test configuration's default: FEE_PERCENT 1, FEE_FIXED 0.
    expect((await readSession(api, merchant, session.id)).fee_amount).toBe('0.04');

    await setFeeRule(merchant, '3', '0.2');
    await pay(session.id, '6');
    expect(amounts(await readSession(api, merchant, session.id))).toEqual({
      status: 'Paid',
      amount_received: '10',
      fee_amount: '0.1', // 10 × 1 %, not 10 × 3 % + 0.2
      net_amount: '9.9',
    });
    expect(await ledgerOf(session.id)).toEqual({ deposits: '10', fees: '-0.1', merchant: '-9.9' });
    expect(await available(merchant)).toEqual([
      expect.objectContaining({ network: 'TRON', currency: 'USDT', available: '9.9' }),
    ]);
  });

  it("stores the merchant's own rule at creation, part by part, else the configured default", async () => {
    const ruleStoredFor = async (sessionId: string) => {
      const [row]: Array<{ fee_percent: string; fee_fixed: string }> = await api.dataSource.query(
        'SELECT fee_percent, fee_fixed FROM checkout_sessions WHERE id = $1',
        [sessionId],
      );
      return [new Decimal(row.fee_percent).toFixed(), new Decimal(row.fee_fixed).toFixed()];
    };
    const storedRule = async (
      merchant: TestMerchant,
      percent: string | null,
      fixed: string | null,
    ) => {
      await setFeeRule(merchant, percent, fixed);
      return ruleStoredFor(
        (await createSession(api, merchant, { pricing_amount: '10', network: 'TRON' })).id,
      );
    };
    // The test configuration's default: FEE_PERCENT 1, FEE_FIXED 0.
    expect(await storedRule(await api.createMerchant(), null, null)).toEqual(['1', '0']);
    expect(await storedRule(await api.createMerchant(), '2.5', '0.3')).toEqual(['2.5', '0.3']);
    expect(await storedRule(await api.createMerchant(), '0', null)).toEqual(['0', '0']);
    expect(await storedRule(await api.createMerchant(), null, '0.25')).toEqual(['1', '0.25']);
    // With an Idempotency-Key too (the keyed statement), and another merchant's rule never leaks.
    const keyed = await api.createMerchant();
    await setFeeRule(keyed, '4', '0.4');
    await setFeeRule(await api.createMerchant(), '9', '9');
    const keyedSession = await createSession(
      api,
      keyed,
      { pricing_amount: '10', network: 'TRON' },
      { 'Idempotency-Key': randomUUID() },
    );
    expect(await ruleStoredFor(keyedSession.id)).toEqual(['4', '0.4']);
  });

  it("the migration backfills each existing session with its merchant's rule, else the configured default", async () => {
    const full = await api.createMerchant();
    const percentOnly = await api.createMerchant();
    const none = await api.createMerchant();
    await setFeeRule(full, '2', '0.5');
    await setFeeRule(percentOnly, '3', null);
    const sessions = {
      full: (await createSession(api, full, { pricing_amount: '10', network: 'TRON' })).id,
      percentOnly: (
        await createSession(api, percentOnly, { pricing_amount: '10', network: 'TRON' })
      ).id,
      none: (await createSession(api, none, { pricing_amount: '10', network: 'TRON' })).id,
    };
    const migration = new SessionFeeRule1764300000000();
    const saved = { percent: process.env.FEE_PERCENT, fixed: process.env.FEE_FIXED };
    const runner = api.dataSource.createQueryRunner();
    // Down and up again inside a transaction that is rolled back: the schema is left as it was.
    await runner.startTransaction();
    try {
      await migration.down(runner);
      Object.assign(process.env, { FEE_PERCENT: '0.75', FEE_FIXED: '0.1' });
      await migration.up(runner);
      const rows: Array<{ id: string; fee_percent: string; fee_fixed: string }> =
        await runner.query(
          `SELECT id, fee_percent, fee_fixed FROM checkout_sessions WHERE id = ANY($1::text[])`,
          [Object.values(sessions)],
        );
      const rule = (id: string) => {
        const row = rows.find((candidate) => candidate.id === id);
        return (
          row && [new Decimal(row.fee_percent).toFixed(), new Decimal(row.fee_fixed).toFixed()]
        );
      };
      expect(rule(sessions.full)).toEqual(['2', '0.5']);
      expect(rule(sessions.percentOnly)).toEqual(['3', '0.1']);
      expect(rule(sessions.none)).toEqual(['0.75', '0.1']);
      // No default is left behind: a session inserted without a rule is refused, not guessed.
      const columns: Array<{ column_name: string; is_nullable: string; column_default: null }> =
        await runner.query(
          `SELECT column_name, is_nullable, column_default FROM information_schema.columns
            WHERE table_name = 'checkout_sessions' AND column_name IN ('fee_percent', 'fee_fixed')
            ORDER BY column_name`,
        );
      expect(columns).toEqual([
        { column_name: 'fee_fixed', is_nullable: 'NO', column_default: null },
        { column_name: 'fee_percent', is_nullable: 'NO', column_default: null },
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
      restoreEnvironment('FEE_PERCENT', saved.percent);
      restoreEnvironment('FEE_FIXED', saved.fixed);
    }
  });

  it('the migration refuses a default the configuration would refuse', async () => {
    const saved = process.env.FEE_PERCENT;
    const runner = api.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await new SessionFeeRule1764300000000().down(runner);
      process.env.FEE_PERCENT = "1'; DROP TABLE merchants; --";
      await expect(new SessionFeeRule1764300000000().up(runner)).rejects.toThrow(
        /^FEE_PERCENT is not a valid fee/,
      );
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
      restoreEnvironment('FEE_PERCENT', saved);
    }
  });
});

function restoreEnvironment(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
