import { MerchantsService } from '@app/auth';
import { creditBalance } from '../support/ledger-credit';
import { signedInOperator, SignedInOperator, auditOfTarget } from '../support/ops-operator';
import {
  balanceOf,
  cleanUpPayouts,
  ledgerLines,
  PAYOUTS,
  postPayout,
  randomTronAddress,
} from '../support/payouts-api';
import { TestApi, TestMerchant } from '../support/test-app';

describe('Operator area: payout review queue (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let admin: SignedInOperator;
  let support: SignedInOperator;

  /** A payout held for review: the merchant reviews every first payment to a new address. */
  const reviewed = async (amount = '25') => {
    const to = randomTronAddress();
    const { body } = await postPayout(api, merchant, {
      amount,
      currency: 'USDT',
      network: 'TRON',
      to_address: to,
    }).expect(201);
    expect(body.pending_reason).toBe('review_new_destination');
    return { id: body.id as string, to };
  };

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Ops Review Shop' });
    await api.app.get(MerchantsService).setPayoutPolicy(merchant.id, null, true);
    await creditBalance(api.dataSource, {
      merchantId: merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1000',
    });
    admin = await signedInOperator(api, 'admin');
    support = await signedInOperator(api, 'support');
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  it('lists payouts awaiting review, oldest first, with what a reviewer needs', async () => {
    const first = await reviewed('25');
    const second = await reviewed('26.5');
    const { body } = await support.agent.get('/ops/api/payout-reviews').expect(200);
    const mine = (body.data as Array<{ id: string }>).filter((row) =>
      [first.id, second.id].includes(row.id),
    );
    expect(mine.map((row) => row.id)).toEqual([first.id, second.id]);
    expect(mine[1]).toMatchObject({
      id: second.id,
      merchant: { id: merchant.id, name: 'Ops Review Shop' },
      amount: '26.5',
      currency: 'USDT',
      network: 'TRON',
      destination: second.to,
      review_reasons: ['new_destination'],
    });
  });

  it('refuses decisions to support operators (403 permission_denied)', async () => {
    const payout = await reviewed();
    const approve = await support.agent
      .post(`/ops/api/payouts/${payout.id}/approve`)
      .set(support.unsafe)
      .send({})
      .expect(403);
    expect(approve.body.error.code).toBe('permission_denied');
    const reject = await support.agent
      .post(`/ops/api/payouts/${payout.id}/reject`)
      .set(support.unsafe)
      .send({ reason: 'looks wrong' })
      .expect(403);
    expect(reject.body.error.code).toBe('permission_denied');
    const { body } = await api.get(`${PAYOUTS}/${payout.id}`, merchant).expect(200);
    expect(body).toMatchObject({ status: 'Pending', reviewed_at: null });
  });

  it('approves through PayoutReviews, audited under the merchant in the same transaction', async () => {
    const payout = await reviewed();
    const { body } = await admin.agent
      .post(`/ops/api/payouts/${payout.id}/approve`)
      .set(admin.unsafe)
      .send({})
      .expect(200);
    expect(body).toMatchObject({ id: payout.id, status: 'Pending', reviewed_by: admin.email });
    expect(body.reviewed_at).not.toBeNull();
    expect(await auditOfTarget(api, payout.id)).toEqual([
      {
        action: 'payout.approved',
        actor_type: 'operator',
        actor_id: admin.userId,
        merchant_id: merchant.id,
        details: { operator_email: admin.email },
      },
    ]);
    const queue = await admin.agent.get('/ops/api/payout-reviews').expect(200);
    expect((queue.body.data as Array<{ id: string }>).map((row) => row.id)).not.toContain(
      payout.id,
    );
    // A second decision is refused by PayoutReviews' own rule, and writes no audit entry.
    const again = await admin.agent
      .post(`/ops/api/payouts/${payout.id}/approve`)
      .set(admin.unsafe)
      .send({})
      .expect(409);
    expect(again.body.error.code).toBe('invalid_state');
    expect(await auditOfTarget(api, payout.id)).toHaveLength(1);
  });

  it('rejects with a reason: the funds are released and the decision audited', async () => {
    const before = await balanceOf(api, merchant, 'TRON', 'USDT');
    const payout = await reviewed('40');
    const missing = await admin.agent
      .post(`/ops/api/payouts/${payout.id}/reject`)
      .set(admin.unsafe)
      .send({})
      .expect(400);
    expect(missing.body.error.param).toBe('reason');
    const tooLong = await admin.agent
      .post(`/ops/api/payouts/${payout.id}/reject`)
      .set(admin.unsafe)
      .send({ reason: 'x'.repeat(501) })
      .expect(400);
    expect(tooLong.body.error.param).toBe('reason');
    const { body } = await admin.agent
      .post(`/ops/api/payouts/${payout.id}/reject`)
      .set(admin.unsafe)
      .send({ reason: 'Destination on a sanctions list' })
      .expect(200);
    expect(body).toMatchObject({ status: 'Rejected', reviewed_by: admin.email });
    expect(await ledgerLines(api, `payout:${payout.id}:release`)).not.toHaveLength(0);
    expect(await balanceOf(api, merchant, 'TRON', 'USDT')).toEqual(before);
    const audit = await auditOfTarget(api, payout.id);
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'payout.rejected',
        actor_type: 'operator',
        merchant_id: merchant.id,
        details: { operator_email: admin.email, reason: 'Destination on a sanctions list' },
      }),
    ]);
  });

  it('answers 409 naming the decision when a decided payout is decided again', async () => {
    const other = await signedInOperator(api, 'admin');
    const decide = (operator: SignedInOperator, id: string, action: 'approve' | 'reject') =>
      operator.agent
        .post(`/ops/api/payouts/${id}/${action}`)
        .set(operator.unsafe)
        .send(action === 'reject' ? { reason: 'Second opinion: refuse' } : {});

    // An approval stands: another admin's reject is refused, the payout keeps its reviewer and
    // its hold, and only the approval is audited.
    const approved = await reviewed();
    await decide(admin, approved.id, 'approve').expect(200);
    const rejectAfter = await decide(other, approved.id, 'reject').expect(409);
    expect(rejectAfter.body.error).toMatchObject({
      code: 'invalid_state',
      param: 'id',
      message: `Cannot reject payout ${approved.id}: it is already approved by ${admin.email}.`,
    });
    const { body: kept } = await api.get(`${PAYOUTS}/${approved.id}`, merchant).expect(200);
    expect(kept).toMatchObject({ status: 'Pending', reviewed_by: admin.email });
    expect(await ledgerLines(api, `payout:${approved.id}:release`)).toHaveLength(0);
    expect((await auditOfTarget(api, approved.id)).map((entry) => entry.action)).toEqual([
      'payout.approved',
    ]);

    // And the reverse: a rejection is final, and the 409 says who rejected it.
    const rejected = await reviewed();
    await decide(admin, rejected.id, 'reject').expect(200);
    const approveAfter = await decide(other, rejected.id, 'approve').expect(409);
    expect(approveAfter.body.error).toMatchObject({
      code: 'invalid_state',
      param: 'id',
      message: `Cannot approve payout ${rejected.id}: it is already rejected by ${admin.email}.`,
    });
    const rejectAgain = await decide(other, rejected.id, 'reject').expect(409);
    expect(rejectAgain.body.error.message).toBe(
      `Cannot reject payout ${rejected.id}: it is already rejected by ${admin.email}.`,
    );
    expect((await auditOfTarget(api, rejected.id)).map((entry) => entry.action)).toEqual([
      'payout.rejected',
    ]);
  });

  it('answers 404 for an unknown payout', async () => {
    const { body } = await admin.agent
      .post('/ops/api/payouts/po_0000000000000000000000/approve')
      .set(admin.unsafe)
      .send({})
      .expect(404);
    expect(body.error.code).toBe('resource_missing');
  });
});
