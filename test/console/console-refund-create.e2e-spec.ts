import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { LedgerAccounts } from '@app/ledger';
import {
  ConsoleMember,
  SAME_ORIGIN,
  auditOf,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { balanceOf, cleanUpPayouts, ledgerLines, randomTronAddress } from '../support/payouts-api';
import {
  paidSession,
  postSessionRefund,
  REFUND_ID,
  RefundBody,
  refundEvents,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const refundsPath = (sessionId: string) => `/console/api/checkout-sessions/${sessionId}/refunds`;

/*
 * A refund from the console (issue 25): POST /console/api/checkout-sessions/{id}/refunds asks
 * for a fresh two-factor code every time, then creates the refund through the /v1 route's own
 * service and idempotency path (held amount, events), audited refund.created once.
 */
describe('Console: refund a payment with a fresh two-factor code', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const createAs = (member: ConsoleMember, sessionId: string, body: object) =>
    member.agent.post(refundsPath(sessionId)).set(unsafe(member)).send(body);
  const refundsOfMerchant = () => api.count('refunds', 'merchant_id = $1', [merchant.id]);
  const underpaid = () =>
    paidSession(api, merchant, {
      network: 'TRON',
      amount: '100',
      received: '40',
      status: 'Underpaid',
    });

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Refunds' });
    owner = await signedInMember(api, merchant, 'owner');
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it('asks for the code first: 401 two_factor_required, nothing created', async () => {
    const session = await underpaid();
    const before = await refundsOfMerchant();
    const refused = await createAs(owner, session.id, {
      reason: 'No code',
      idempotency_key: randomUUID(),
    }).expect(401);
    expect(refused.body.error).toMatchObject({
      code: 'two_factor_required',
      param: 'two_factor_code',
    });
    expect(await refundsOfMerchant()).toBe(before);
  });

  it('creates a real refund with its hold and events, audits it, and one idempotency key is one refund', async () => {
    const session = await underpaid();
    const before = await refundsOfMerchant();
    const balanceBefore = await balanceOf(api, merchant, 'TRON', 'USDT');
    const toAddress = randomTronAddress();
    const body = {
      amount: '25',
      to_address: toAddress,
      reason: 'Customer asked',
      idempotency_key: randomUUID(),
    };
    const firstCode = totpCode(owner.secret, 1);
    const created = await createAs(owner, session.id, {
      ...body,
      two_factor_code: firstCode,
    }).expect(201);
    const refund = created.body as RefundBody;
    expect(refund).toMatchObject({
      id: expect.stringMatching(REFUND_ID),
      session_id: session.id,
      status: 'Pending',
      amount: '25',
      fee: '1',
      net_amount: '24',
      currency: 'USDT',
      network: 'TRON',
      to_address: toAddress,
      reason: 'Customer asked',
    });
    expect(created.body).not.toHaveProperty('two_factor_code');
    expect(created.body).not.toHaveProperty('idempotency_key');
    const { body: read } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(read).toEqual(refund);
    // The amount is held from the merchant's balance, as for a /v1 refund.
    const afterHold = {
      available: new Decimal(balanceBefore!.available).minus(25).toString(),
      held: new Decimal(balanceBefore!.held).plus(25).toString(),
    };
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(afterHold);
    expect(await ledgerLines(api, `refund:${refund.id}:hold`)).toEqual([
      {
        kind: 'refund_hold',
        account: LedgerAccounts.merchant(merchant.id, null, 'TRON', 'USDT'),
        amount: '25',
      },
      {
        kind: 'refund_hold',
        account: LedgerAccounts.merchantHeld(merchant.id, null, 'TRON', 'USDT'),
        amount: '-25',
      },
    ]);
    expect(await refundEvents(api, merchant, refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
    ]);
    // Its payout, which the worker sends, exists.
    expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(1);

    const audits: Array<{ action: string; target_type: string; target_id: string }> =
      await api.dataSource.query(
        `SELECT action, target_type, target_id FROM console_audit_log
          WHERE actor_id = $1 AND action = 'refund.created'`,
        [owner.userId],
      );
    expect(audits).toEqual([
      { action: 'refund.created', target_type: 'refund', target_id: refund.id },
    ]);
    const [entry] = (await auditOf(api, owner.userId)).filter(
      (item) => item.action === 'refund.created',
    );
    expect(entry).toMatchObject({
      merchant_id: merchant.id,
      details: { session_id: session.id, amount: '25', currency: 'USDT', network: 'TRON' },
    });
    // Never the address in the audit entry.
    expect(JSON.stringify(entry)).not.toContain(toAddress);

    // A code is spent once: the retry (a double click, a lost answer) comes with the next one.
    await waitFor(
      async () => totpCode(owner.secret, 1) !== firstCode,
      60_000,
      'the next TOTP time step',
    );
    const replayed = await createAs(owner, session.id, {
      ...body,
      two_factor_code: totpCode(owner.secret, 1),
    }).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(refund);
    expect(await refundsOfMerchant()).toBe(before + 1);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(afterHold);
    const createdAudits = (await auditOf(api, owner.userId)).filter(
      (item) => item.action === 'refund.created',
    );
    expect(createdAudits).toHaveLength(1);
  });

  it('writes refund.created in the refund transaction: no audit entry, no refund, no hold', async () => {
    const member = await signedInMember(api, merchant, 'owner', 'refund-audit-refused');
    const session = await underpaid();
    // The audit insert of this one member fails (a trigger standing in for any failure between
    // the refund and its entry): the refund, its hold and its event must roll back with it.
    const refuse = `refuse_audit_${randomUUID().replace(/-/g, '')}`;
    await api.dataSource.query(
      `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN RAISE EXCEPTION 'audit entry refused by the test'; END $$`,
    );
    await api.dataSource.query(
      `CREATE TRIGGER ${refuse} BEFORE INSERT ON console_audit_log FOR EACH ROW
         WHEN (NEW.action = 'refund.created' AND NEW.actor_id = '${member.userId}')
         EXECUTE FUNCTION ${refuse}()`,
    );
    try {
      const balanceBefore = await balanceOf(api, merchant, 'TRON', 'USDT');
      const events = await api.count('events', 'merchant_id = $1', [merchant.id]);
      await createAs(member, session.id, {
        amount: '10',
        to_address: randomTronAddress(),
        idempotency_key: randomUUID(),
        two_factor_code: totpCode(member.secret, 1),
      }).expect(500);
      expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(0);
      expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balanceBefore);
      expect(await api.count('events', 'merchant_id = $1', [merchant.id])).toBe(events);
    } finally {
      await api.dataSource.query(`DROP TRIGGER ${refuse} ON console_audit_log`);
      await api.dataSource.query(`DROP FUNCTION ${refuse}()`);
    }
  });

  it('refuses a developer (wrong role) and a viewer: 403 permission_denied, nothing created', async () => {
    const session = await underpaid();
    const before = await refundsOfMerchant();
    for (const role of ['developer', 'viewer', 'support'] as const) {
      const member = await signedInMember(api, merchant, role);
      const refused = await createAs(member, session.id, {
        to_address: randomTronAddress(),
        idempotency_key: randomUUID(),
        two_factor_code: totpCode(member.secret, 1),
      }).expect(403);
      expect([role, refused.body.error.code]).toEqual([role, 'permission_denied']);
    }
    expect(await refundsOfMerchant()).toBe(before);
  });

  it('refuses a wrong code (400, audited) and answers the /v1 refusals after a right one', async () => {
    const member = await signedInMember(api, merchant, 'admin', 'refund-admin');
    const session = await underpaid();
    const wrong = await createAs(member, session.id, {
      amount: '10',
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(member.secret, -20),
    }).expect(400);
    expect(wrong.body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'two_factor_code',
    });
    expect((await auditOf(api, member.userId))[0]).toMatchObject({
      action: 'two_factor.fresh_code_failed',
      details: { purpose: 'refund a payment' },
    });
    // Past the code, the refund's own rules: more than was received.
    const above = await createAs(member, session.id, {
      amount: '41',
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(member.secret, 1),
    }).expect(422);
    expect(above.body.error).toMatchObject({ code: 'amount_above_refundable', param: 'amount' });
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(0);
  });

  it('still refuses POST /v1/checkout/sessions/{id}/refunds from a console session, naming this route', async () => {
    const session = await underpaid();
    const refused = await owner.agent
      .post(`/v1/checkout/sessions/${session.id}/refunds`)
      .set({ ...unsafe(owner), 'Idempotency-Key': randomUUID() })
      .send({ amount: '10', to_address: randomTronAddress() })
      .expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'permission_denied',
      message:
        'Money is sent from the console with a fresh two-factor code (POST /console/api/checkout-sessions/:id/refunds).',
    });
    expect(await api.count('refunds', 'session_id = $1', [session.id])).toBe(0);
  });

  it('cancels a refund through POST /v1/refunds/{id}/cancel with a session (nothing is sent): the hold goes back, audited', async () => {
    const session = await underpaid();
    const balanceBefore = await balanceOf(api, merchant, 'TRON', 'USDT');
    // Created with an API key: this test is about canceling with a session.
    const { body: refund } = await postSessionRefund(api, merchant, session.id, {
      amount: '30',
      reason: 'To cancel',
    }).expect(201);
    expect(refund.status).toBe('requires_destination');
    const canceled = await owner.agent
      .post(`/v1/refunds/${refund.id}/cancel`)
      .set(unsafe(owner))
      .send({})
      .expect(200);
    expect(canceled.body).toMatchObject({ id: refund.id, status: 'Canceled' });
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balanceBefore);
    await waitFor(
      async () =>
        (await auditOf(api, owner.userId)).some(
          (item) => item.action === 'api.POST /v1/refunds/:id/cancel',
        ),
      30_000,
      'the cancel audited',
    );
  });
});
