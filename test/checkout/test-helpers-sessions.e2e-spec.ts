import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import Decimal from 'decimal.js';
import { SIMULATED_TX_HASH_PREFIX } from '@app/checkout';
import { ChainResetService } from '@app/deposits';
import { SweepPlannerRepository } from '@app/treasury';
import { DetectedTransfersRepository } from '../../libs/deposits/src/detected-transfers.repository';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { createSession } from '../support/sessions-api';

const helper = (id: string, action: string) => `/v1/test-helpers/checkout/sessions/${id}/${action}`;

describe('Sandbox test helpers: simulated payments, reorgs and expiry of sessions (real PostgreSQL)', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Sandbox Shop' });
  });

  afterAll(() => api?.close());

  async function eventsOf(sessionId: string): Promise<string[]> {
    const rows: Array<{ type: string }> = await api.dataSource.query(
      `SELECT type FROM events WHERE object_id = $1 ORDER BY sequence`,
      [sessionId],
    );
    return rows.map((row) => row.type.replace('checkout.session.', ''));
  }

  /** The session's lines on an account kind, over every entry settlement and the helper posted. */
  async function linesOn(sessionId: string, kind: string): Promise<string> {
    const [row]: Array<{ sum: string | null }> = await api.dataSource.query(
      `SELECT sum(l.amount)::text AS sum FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
        WHERE split_part(l.account, ':', 1) = $2
          AND (e.reference LIKE 'checkout_session:' || $1 || ':%'
               OR e.reference IN (SELECT 'simulated_transfer:' || t.id || ':' || s
                                    FROM session_transactions t,
                                         unnest(ARRAY['booked', 'reverted']) s
                                   WHERE t.session_id = $1))`,
      [sessionId, kind],
    );
    return new Decimal(row.sum ?? 0).toFixed();
  }

  it('underpaid, then a top-up: Paid, with the events in order, through settlement', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const half = new Decimal(session.amount).div(2).toDecimalPlaces(6).toFixed();
    const first = await api
      .post(helper(session.id, 'payments'), merchant, { amount: half })
      .expect(200);
    expect(first.body).toMatchObject({ id: session.id, status: 'Pending', amount_received: half });
    expect(first.body.transactions).toHaveLength(1);
    expect(first.body.transactions[0].tx_hash.startsWith(SIMULATED_TX_HASH_PREFIX)).toBe(true);
    expect(first.body.transactions[0].status).toBe('Confirmed');

    const rest = new Decimal(session.amount).minus(half).toFixed();
    const second = await api
      .post(helper(session.id, 'payments'), merchant, { amount: rest })
      .expect(200);
    expect(second.body).toMatchObject({ status: 'Paid' });
    expect(new Decimal(second.body.amount_received).equals(session.amount)).toBe(true);
    expect(await eventsOf(session.id)).toEqual([
      'payment_detected',
      'payment_confirmed',
      'payment_detected',
      'payment_confirmed',
      'paid',
    ]);
    // The merchant's balance got the net amount; deposits: (compared with the chain) nothing.
    expect(await linesOn(session.id, 'merchant')).toBe(
      new Decimal(second.body.net_amount).negated().toFixed(),
    );
    expect(await linesOn(session.id, 'deposits')).toBe('0');
    expect(await linesOn(session.id, 'simulated')).toBe(new Decimal(session.amount).toFixed());
    // A paid session takes no more (a real transfer would be unmatched).
    const refused = await api
      .post(helper(session.id, 'payments'), merchant, { amount: '1' })
      .expect(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state', param: 'id' });
  });

  it('overpaid: Paid with everything received', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const double = new Decimal(session.amount).times(2).toFixed();
    const paid = await api
      .post(helper(session.id, 'payments'), merchant, { amount: double })
      .expect(200);
    expect(paid.body.status).toBe('Paid');
    expect(paid.body.amount_received).toBe(double);
  });

  it('expire, then a late payment: Expired, then Paid', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const expired = await api.post(helper(session.id, 'expire'), merchant, {}).expect(200);
    expect(expired.body.status).toBe('Expired');
    expect(new Date(expired.body.expires_at).getTime()).toBeLessThanOrEqual(Date.now());
    await api.post(helper(session.id, 'expire'), merchant, {}).expect(409);
    const late = await api
      .post(helper(session.id, 'payments'), merchant, { amount: session.amount })
      .expect(200);
    expect(late.body.status).toBe('Paid');
    expect(await eventsOf(session.id)).toEqual([
      'expired',
      'payment_detected',
      'payment_confirmed',
      'paid',
    ]);
  });

  it('a part paid after expiry is Underpaid', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    await api.post(helper(session.id, 'expire'), merchant, {}).expect(200);
    const part = await api
      .post(helper(session.id, 'payments'), merchant, { amount: '1' })
      .expect(200);
    expect(part.body.status).toBe('Underpaid');
  });

  it('a reorg reverts the last simulated transfer: back to Pending, credit taken back', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    await api
      .post(helper(session.id, 'payments'), merchant, { amount: session.amount })
      .expect(200);
    const reorged = await api.post(helper(session.id, 'reorg'), merchant, {}).expect(200);
    expect(reorged.body).toMatchObject({ status: 'Pending', amount_received: '0' });
    expect(reorged.body.transactions[0].status).toBe('Reverted');
    expect(await eventsOf(session.id)).toEqual([
      'payment_detected',
      'payment_confirmed',
      'paid',
      'transaction_reverted',
      'pending',
    ]);
    for (const kind of ['merchant', 'deposits', 'simulated', 'fees']) {
      expect(await linesOn(session.id, kind)).toBe('0');
    }
    // Nothing left to revert.
    const none = await api.post(helper(session.id, 'reorg'), merchant, {}).expect(409);
    expect(none.body.error.code).toBe('invalid_state');
  });

  it('fewer confirmations than the network needs: detected only, and the watcher never reads it', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const detected = await api
      .post(helper(session.id, 'payments'), merchant, { amount: session.amount, confirmations: 1 })
      .expect(200);
    expect(detected.body.status).toBe('Pending');
    expect(detected.body.transactions[0].status).toBe('Pending');
    expect(await eventsOf(session.id)).toEqual(['payment_detected']);
    // What the deposit watcher checks against the chain (reorgs, confirmations) leaves it out.
    const transfers = api.app.get(DetectedTransfersRepository, { strict: false });
    const manager = api.dataSource.manager;
    const revertible = await transfers.findRevertible(manager, 'TRON', 0);
    const pending = await transfers.findPendingUpTo(manager, 'TRON', Number.MAX_SAFE_INTEGER);
    const ids = [...revertible, ...pending].map((row) => row.session_id);
    expect(ids).not.toContain(session.id);
    // A reorg of a pending one: reverted, nothing was ever credited.
    const reorged = await api.post(helper(session.id, 'reorg'), merchant, {}).expect(200);
    expect(reorged.body.status).toBe('Pending');
    expect(await eventsOf(session.id)).toEqual(['payment_detected', 'transaction_reverted']);
  });

  it('a chain reset forgets real transfers only: a simulated one was on no chain', async () => {
    const created = await api
      .post('/v1/checkout/sessions', merchant, {
        pricing_amount: '10',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'ETHEREUM',
      })
      .expect(201);
    const session = { id: created.body.id as string, amount: created.body.amount as string };
    await api
      .post(helper(session.id, 'payments'), merchant, { amount: session.amount })
      .expect(200);
    await api.app.get(ChainResetService).forget('ETHEREUM');
    const { body: after } = await api.get(`/v1/checkout/sessions/${session.id}`, merchant);
    expect(after.status).toBe('Paid');
    expect(after.transactions[0].status).toBe('Confirmed');
    expect(await eventsOf(session.id)).toEqual(['payment_detected', 'payment_confirmed', 'paid']);
    expect(await linesOn(session.id, 'deposits')).toBe('0');
  });

  it('the hosted page streams a simulated payment as it streams a real one', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const server = http.createServer(api.app.getHttpAdapter().getInstance());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let body = '';
    const stream = http.get(`http://127.0.0.1:${port}/checkout/${session.id}/stream`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
    });
    try {
      await waitFor(async () => body.includes('event: session'), 30_000, 'the first state');
      await api
        .post(helper(session.id, 'payments'), merchant, { amount: session.amount })
        .expect(200);
      await waitFor(async () => body.includes('"Paid"'), 30_000, 'the paid state streamed');
    } finally {
      stream.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a simulated payment never marks its address for sweeping', async () => {
    // The planner clears a marked address on the zero it then reads: a simulated payment must
    // not look like activity on the chain (a sweep suite run after this one failed on it).
    const session = await createSession(api, merchant, { network: 'TRON' });
    const [{ pay_address: address }]: Array<{ pay_address: string }> = await api.dataSource.query(
      `SELECT pay_address FROM checkout_sessions WHERE id = $1`,
      [session.id],
    );
    await api
      .post(helper(session.id, 'payments'), merchant, { amount: session.amount })
      .expect(200);
    await new SweepPlannerRepository(api.dataSource).ingest('TRON', 'USDT');
    expect(await api.count('sweep_addresses', `network = 'TRON' AND address = $1`, [address])).toBe(
      0,
    );
  });

  it('replays an Idempotency-Key: one transfer', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const send = () =>
      api.post(
        helper(session.id, 'payments'),
        merchant,
        { amount: '1' },
        {
          'Idempotency-Key': `sim-${session.id}`,
        },
      );
    const first = await send().expect(200);
    const again = await send().expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await api.count('session_transactions', 'session_id = $1', [session.id])).toBe(1);
  });

  it("another merchant's session is a 404, and so is any route with a live key", async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const other = await api.createMerchant({ name: 'Other Shop' });
    for (const action of ['payments', 'reorg', 'expire']) {
      const missing = await api
        .post(helper(session.id, action), other, { amount: '1' })
        .expect(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    }
    const liveKey = `sk_live_${'A'.repeat(43)}`;
    const live = await request(api.http)
      .post(helper(session.id, 'payments'))
      .set('Authorization', `Bearer ${liveKey}`)
      .send({ amount: '1' })
      .expect(404);
    expect(live.body.error.code).toBe('route_not_found');
    expect(await api.count('session_transactions', 'session_id = $1', [session.id])).toBe(0);
  });

  it('bad input is a 400 naming the field', async () => {
    const session = await createSession(api, merchant, { network: 'TRON' });
    const cases: Array<[object, string]> = [
      [{}, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '-1' }, 'amount'],
      [{ amount: 10 }, 'amount'],
      [{ amount: '1.1234567' }, 'amount'],
      [{ amount: '1', confirmations: -1 }, 'confirmations'],
      [{ amount: '1', confirmations: 1.5 }, 'confirmations'],
    ];
    for (const [body, param] of cases) {
      const refused = await api.post(helper(session.id, 'payments'), merchant, body).expect(400);
      expect(refused.body.error.param).toBe(param);
    }
    expect(await api.count('session_transactions', 'session_id = $1', [session.id])).toBe(0);
  });
});
