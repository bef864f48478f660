import { randomUUID } from 'node:crypto';
import { LedgerAccounts } from '@app/ledger';
import { ConsoleMember, SAME_ORIGIN, signedInMember, totpCode } from '../support/console-identity';
import { balanceOf, cleanUpPayouts, ledgerLines, randomTronAddress } from '../support/payouts-api';
import {
  paidSession,
  REFUND_ID,
  RefundBody,
  refundEvents,
  unmatchedTransfer,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const refundsPath = (transferId: string) =>
  `/console/api/unmatched-transfers/${transferId}/refunds`;

/*
 * Refunding an unmatched transfer from the console (issue 25):
 * POST /console/api/unmatched-transfers/{id}/refunds asks for a fresh two-factor code every
 * time, then creates the refund through POST /v1/unmatched-transfers/{id}/refunds' own service
 * and idempotency path (held from `unmatched` in `refund_hold`, events), audited refund.created
 * in the refund's own transaction, once per refund.
 */
describe('Console: refund an unmatched transfer with a fresh two-factor code', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let owner: ConsoleMember;

  const unsafe = (member: ConsoleMember) => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });
  const createAs = (member: ConsoleMember, transferId: string, body: object) =>
    member.agent.post(refundsPath(transferId)).set(unsafe(member)).send(body);
  const refundsOf = (transferId: string) =>
    api.count('refunds', 'unmatched_transfer_id = $1', [transferId]);
  const createdAuditsOf = (
    member: ConsoleMember,
  ): Promise<
    Array<{ merchant_id: string; target_type: string; target_id: string; details: object }>
  > =>
    api.dataSource.query(
      `SELECT merchant_id, target_type, target_id, details FROM console_audit_log
        WHERE actor_id = $1 AND action = 'refund.created'`,
      [member.userId],
    );

  /** A confirmed (booked) 30 USDT transfer on TRON that no session took. */
  async function transfer(): Promise<string> {
    const session = await paidSession(api, merchant, {
      network: 'TRON',
      amount: '10',
      received: '10',
      status: 'Paid',
    });
    return unmatchedTransfer(api, merchant, session, { network: 'TRON', amount: '30' });
  }

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Unmatched Refunds' });
    owner = await signedInMember(api, merchant, 'owner');
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it('asks for the code first: 401 two_factor_required, nothing created', async () => {
    const transferId = await transfer();
    const refused = await createAs(owner, transferId, {
      to_address: randomTronAddress(),
      idempotency_key: randomUUID(),
    }).expect(401);
    expect(refused.body.error).toMatchObject({
      code: 'two_factor_required',
      param: 'two_factor_code',
    });
    expect(await refundsOf(transferId)).toBe(0);
  });

  it('refunds it from refund_hold, audits it once, and one idempotency key is one refund', async () => {
    const transferId = await transfer();
    const balanceBefore = await balanceOf(api, merchant, 'TRON', 'USDT');
    const toAddress = randomTronAddress();
    const body = { to_address: toAddress, reason: 'Wrong token', idempotency_key: randomUUID() };
    const firstCode = totpCode(owner.secret, 1);
    const created = await createAs(owner, transferId, {
      ...body,
      two_factor_code: firstCode,
    }).expect(201);
    const refund = created.body as RefundBody;
    expect(refund).toMatchObject({
      id: expect.stringMatching(REFUND_ID),
      session_id: null,
      unmatched_transfer_id: transferId,
      status: 'Pending',
      amount: '30',
      fee: '1',
      net_amount: '29',
      currency: 'USDT',
      network: 'TRON',
      to_address: toAddress,
      destination_url: null,
      reason: 'Wrong token',
    });
    expect(created.body).not.toHaveProperty('two_factor_code');
    const { body: read } = await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200);
    expect(read).toEqual(refund);
    // The money was never the merchant's: held from `unmatched`, the merchant's balance untouched.
    expect(await ledgerLines(api, `refund:${refund.id}:hold`)).toEqual([
      { kind: 'refund_hold', account: LedgerAccounts.unmatched('TRON', 'USDT'), amount: '30' },
      { kind: 'refund_hold', account: LedgerAccounts.refundHold('TRON', 'USDT'), amount: '-30' },
    ]);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(balanceBefore);
    expect(await refundEvents(api, merchant, refund.id)).toEqual([
      { type: 'refund.created', previous_status: null, status: 'Pending' },
    ]);
    expect(await api.count('payouts', 'refund_id = $1', [refund.id])).toBe(1);

    const [entry, ...more] = await createdAuditsOf(owner);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      merchant_id: merchant.id,
      target_type: 'refund',
      target_id: refund.id,
      details: {
        unmatched_transfer_id: transferId,
        amount: '30',
        currency: 'USDT',
        network: 'TRON',
      },
    });
    expect(JSON.stringify(entry)).not.toContain(toAddress);

    // The retry (a double click, a lost answer) comes with the next code and replays the refund.
    await waitFor(
      async () => totpCode(owner.secret, 1) !== firstCode,
      60_000,
      'the next TOTP time step',
    );
    const replayed = await createAs(owner, transferId, {
      ...body,
      two_factor_code: totpCode(owner.secret, 1),
    }).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(refund);
    expect(await refundsOf(transferId)).toBe(1);
    expect(await createdAuditsOf(owner)).toHaveLength(1);
  });

  it('answers the /v1 route’s refusals after the code: no address, a part', async () => {
    // Two admins: a code is spent once, and each refusal comes after a right code.
    const member = await signedInMember(api, merchant, 'admin', 'unmatched-admin');
    const second = await signedInMember(api, merchant, 'admin', 'unmatched-admin-2');
    const transferId = await transfer();
    const noAddress = await createAs(member, transferId, {
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(member.secret, 1),
    }).expect(400);
    expect(noAddress.body.error).toMatchObject({
      code: 'parameter_missing',
      param: 'to_address',
    });
    const part = await createAs(second, transferId, {
      amount: '20',
      to_address: randomTronAddress(),
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(second.secret, 1),
    }).expect(422);
    expect(part.body.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    expect(await refundsOf(transferId)).toBe(0);
    expect(await createdAuditsOf(member)).toEqual([]);
    expect(await createdAuditsOf(second)).toEqual([]);
  });

  it('writes refund.created in the refund transaction: no audit entry, no refund', async () => {
    const member = await signedInMember(api, merchant, 'owner', 'unmatched-audit-refused');
    const transferId = await transfer();
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
      const refundHold = await api.dataSource.query(
        `SELECT count(*)::int AS n FROM ledger_entries WHERE reference LIKE 'refund:%:hold'`,
      );
      await createAs(member, transferId, {
        to_address: randomTronAddress(),
        idempotency_key: randomUUID(),
        two_factor_code: totpCode(member.secret, 1),
      }).expect(500);
      expect(await refundsOf(transferId)).toBe(0);
      expect(
        await api.dataSource.query(
          `SELECT count(*)::int AS n FROM ledger_entries WHERE reference LIKE 'refund:%:hold'`,
        ),
      ).toEqual(refundHold);
    } finally {
      await api.dataSource.query(`DROP TRIGGER ${refuse} ON console_audit_log`);
      await api.dataSource.query(`DROP FUNCTION ${refuse}()`);
    }
    // The transfer is still refundable: nothing of the failed attempt was left.
    const other = await signedInMember(api, merchant, 'owner', 'unmatched-after-refusal');
    await createAs(other, transferId, {
      to_address: randomTronAddress(),
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(other.secret, 1),
    }).expect(201);
    expect(await createdAuditsOf(member)).toEqual([]);
    expect(await createdAuditsOf(other)).toHaveLength(1);
  });

  it('refuses a developer, a viewer and support: 403 permission_denied, nothing created', async () => {
    const transferId = await transfer();
    for (const role of ['developer', 'viewer', 'support'] as const) {
      const member = await signedInMember(api, merchant, role, `unmatched-${role}`);
      const refused = await createAs(member, transferId, {
        to_address: randomTronAddress(),
        idempotency_key: randomUUID(),
        two_factor_code: totpCode(member.secret, 1),
      }).expect(403);
      expect([role, refused.body.error.code]).toEqual([role, 'permission_denied']);
    }
    expect(await refundsOf(transferId)).toBe(0);
  });

  it('reads X-Sub-Merchant-Code as the /v1 route does: a direct merchant sending it is refused', async () => {
    const member = await signedInMember(api, merchant, 'owner', 'unmatched-sub-merchant');
    const transferId = await transfer();
    const refused = await createAs(member, transferId, {
      to_address: randomTronAddress(),
      idempotency_key: randomUUID(),
      two_factor_code: totpCode(member.secret, 1),
    })
      .set('X-Sub-Merchant-Code', 'shop-one')
      .expect(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied' });
    expect(await refundsOf(transferId)).toBe(0);
  });

  it('still refuses POST /v1/unmatched-transfers/{id}/refunds from a console session, naming this route', async () => {
    const transferId = await transfer();
    const refused = await owner.agent
      .post(`/v1/unmatched-transfers/${transferId}/refunds`)
      .set({ ...unsafe(owner), 'Idempotency-Key': randomUUID() })
      .send({ to_address: randomTronAddress() })
      .expect(403);
    expect(refused.body.error).toMatchObject({
      code: 'permission_denied',
      message:
        'Money is sent from the console with a fresh two-factor code (POST /console/api/unmatched-transfers/:id/refunds).',
    });
    expect(await refundsOf(transferId)).toBe(0);
  });
});
