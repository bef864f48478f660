import { randomUUID } from 'node:crypto';
import { MerchantsService } from '@app/auth';
import {
  ConsoleMember,
  SAME_ORIGIN,
  auditOf,
  signedInMember,
  totpCode,
} from '../support/console-identity';
import { creditBalance } from '../support/ledger-credit';
import { cleanUpPayouts, PAYOUT_ID, randomTronAddress } from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const CONSOLE_PAYOUTS = '/console/api/payouts';

describe('Console: create a payout with a fresh two-factor code', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const payoutBody = (extra: Record<string, unknown> = {}) => ({
    amount: '12.5',
    currency: 'USDT',
    network: 'TRON',
    to_address: randomTronAddress(),
    description: 'Console withdrawal',
    idempotency_key: randomUUID(),
    ...extra,
  });
  const createAs = (member: ConsoleMember, body: object) =>
    member.agent.post(CONSOLE_PAYOUTS).set(unsafe(member)).send(body);
  const payoutsOfMerchant = () => api.count('payouts', 'merchant_id = $1', [merchant.id]);

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Payouts' });
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '500',
    });
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, '0.5', false);
    owner = await signedInMember(api, merchant, 'owner');
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it('asks for the code first: 401 two_factor_required, nothing created', async () => {
    const before = await payoutsOfMerchant();
    const refused = await createAs(owner, payoutBody()).expect(401);
    expect(refused.body.error).toMatchObject({
      code: 'two_factor_required',
      param: 'two_factor_code',
    });
    expect(await payoutsOfMerchant()).toBe(before);
  });

  it('creates the payout as POST /v1/payouts does, audits it, and one idempotency key is one payout', async () => {
    const before = await payoutsOfMerchant();
    const body = payoutBody();
    const firstCode = totpCode(owner.secret, 1);
    const created = await createAs(owner, { ...body, two_factor_code: firstCode }).expect(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(PAYOUT_ID),
      status: 'Pending',
      amount: '12.5',
      currency: 'USDT',
      network: 'TRON',
      to_address: body.to_address,
      description: 'Console withdrawal',
    });
    expect(created.body).not.toHaveProperty('two_factor_code');
    const { body: read } = await api.get(`/v1/payouts/${created.body.id}`, merchant).expect(200);
    expect(read).toEqual(created.body);

    const audits: Array<{ action: string; target_id: string }> = await api.dataSource.query(
      `SELECT action, target_id FROM console_audit_log WHERE actor_id = $1 AND action = 'payout.created'`,
      [owner.userId],
    );
    expect(audits).toEqual([{ action: 'payout.created', target_id: created.body.id }]);

    // A code is spent once: the retry (a double click, a lost answer) comes with the next one.
    await waitFor(
      async () => totpCode(owner.secret, 1) !== firstCode,
      60_000,
      'the next TOTP time step',
    );
    const replayed = await createAs(owner, {
      ...body,
      two_factor_code: totpCode(owner.secret, 1),
    }).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(created.body);
    expect(await payoutsOfMerchant()).toBe(before + 1);
    const createdAudits = (await auditOf(api, owner.userId)).filter(
      (entry) => entry.action === 'payout.created',
    );
    expect(createdAudits).toHaveLength(1);
  });

  it('writes payout.created in the payout transaction: no audit entry, no payout', async () => {
    const member = await signedInMember(api, merchant, 'owner', 'audit-refused');
    // The audit insert of this one member fails (a trigger standing in for any failure between
    // the payout and its entry): the payout must roll back with it, not stay unaudited.
    const refuse = `refuse_audit_${randomUUID().replace(/-/g, '')}`;
    await api.dataSource.query(
      `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS
         $$ BEGIN RAISE EXCEPTION 'audit entry refused by the test'; END $$`,
    );
    await api.dataSource.query(
      `CREATE TRIGGER ${refuse} BEFORE INSERT ON console_audit_log FOR EACH ROW
         WHEN (NEW.action = 'payout.created' AND NEW.actor_id = '${member.userId}')
         EXECUTE FUNCTION ${refuse}()`,
    );
    try {
      const before = await payoutsOfMerchant();
      await createAs(member, payoutBody({ two_factor_code: totpCode(member.secret, 1) })).expect(
        500,
      );
      expect(await payoutsOfMerchant()).toBe(before);
    } finally {
      await api.dataSource.query(`DROP TRIGGER ${refuse} ON console_audit_log`);
      await api.dataSource.query(`DROP FUNCTION ${refuse}()`);
    }
  });

  it('answers a double submit with the same code as "already used", never counted as wrong', async () => {
    const member = await signedInMember(api, merchant, 'owner', 'double-submit');
    const body = payoutBody({ two_factor_code: totpCode(member.secret, 1) });
    await createAs(member, body).expect(201);
    // The same form sent again (a double click): more times than the wrong-code limit allows.
    for (let attempt = 1; attempt <= 6; attempt++) {
      const again = await createAs(member, body).expect(400);
      expect(again.body.error).toMatchObject({
        code: 'parameter_invalid',
        param: 'two_factor_code',
        message:
          'This two-factor code was already used. Wait for the next code of your authenticator app.',
      });
    }
    const failures = (await auditOf(api, member.userId)).filter(
      (entry) => entry.action === 'two_factor.fresh_code_failed',
    );
    expect(failures).toHaveLength(0);
  });

  it('refuses a viewer and a developer: 403 permission_denied', async () => {
    for (const role of ['viewer', 'developer'] as const) {
      const member = await signedInMember(api, merchant, role);
      const refused = await createAs(
        member,
        payoutBody({ two_factor_code: totpCode(member.secret, 1) }),
      ).expect(403);
      expect(refused.body.error.code).toBe('permission_denied');
    }
  });

  it('counts wrong codes: 400 parameter_invalid five times, then 429 with Retry-After', async () => {
    const guesser = await signedInMember(api, merchant, 'owner', 'guesser');
    const wrong = totpCode(guesser.secret, -20);
    const before = await payoutsOfMerchant();
    for (let attempt = 1; attempt <= 5; attempt++) {
      const refused = await createAs(guesser, payoutBody({ two_factor_code: wrong })).expect(400);
      expect(refused.body.error).toMatchObject({
        code: 'parameter_invalid',
        param: 'two_factor_code',
      });
    }
    const limited = await createAs(
      guesser,
      payoutBody({ two_factor_code: totpCode(guesser.secret, 1) }),
    ).expect(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', param: 'two_factor_code' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await payoutsOfMerchant()).toBe(before);
  });

  it('refuses POST /v1/payouts from a console session (no second factor); API keys unchanged', async () => {
    const before = await payoutsOfMerchant();
    const { idempotency_key: key, ...body } = payoutBody();
    const refused = await owner.agent
      .post('/v1/payouts')
      .set({ ...unsafe(owner), 'Idempotency-Key': key })
      .send(body)
      .expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'permission_denied',
      message:
        'Money is sent from the console with a fresh two-factor code (POST /console/api/payouts).',
    });
    expect(await payoutsOfMerchant()).toBe(before);

    await api.post('/v1/payouts', merchant, body, { 'Idempotency-Key': randomUUID() }).expect(201);
    expect(await payoutsOfMerchant()).toBe(before + 1);
  });

  // Refunds send money too (to any to_address): a console session is refused before the refund
  // is even looked up. Each has its console route with a fresh code.
  it.each([
    [
      'a checkout session',
      '/v1/checkout/sessions/cs_unknown0000000000000000/refunds',
      'Money is sent from the console with a fresh two-factor code (POST /console/api/checkout-sessions/:id/refunds).',
    ],
    [
      'an unmatched transfer',
      '/v1/unmatched-transfers/utx_unknown000000000000000/refunds',
      'Money is sent from the console with a fresh two-factor code (POST /console/api/unmatched-transfers/:id/refunds).',
    ],
  ])('refuses a refund of %s from a console session', async (_what, path, message) => {
    const refused = await owner.agent
      .post(path)
      .set({ ...unsafe(owner), 'Idempotency-Key': randomUUID() })
      .send({ amount: '1', to_address: randomTronAddress() })
      .expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'permission_denied',
      message,
    });
  });
});
