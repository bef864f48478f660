import { randomUUID } from 'node:crypto';
import { ApiKeysService, ApiScope } from '@app/auth';
import { signedInMember } from '../support/console-identity';
import { signedInOperator } from '../support/ops-operator';
import { cleanUpPayouts, randomEvmAddress } from '../support/payouts-api';
import {
  paidSession,
  postRefundDestination,
  postSessionRefund,
  RefundBody,
} from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';

/*
 * Refunds review: who reads a refund's customer link (`destination_url`, its secret in the
 * fragment). Whoever opens it first chooses where the refund goes, so only a caller who may move
 * refunds (`refunds:write`) reads it: a `refunds:read` key, a console viewer or support member and
 * an operator viewing as the merchant get null (H1). Answers that can carry it are not cached
 * (L3); a replayed creation answers it from the refund as it stands now (L1); the customer's
 * retry of the form is refused for a refund canceled since, not told it will be sent (L2).
 */
describe('Refund links: who reads them, and answers about refunds that moved on', () => {
  let api: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Refund Link Readers Shop' });
  });

  afterAll(async () => {
    await cleanUpPayouts(api, [merchant]);
    await api.close();
  });

  async function restrictedKey(scopes: ApiScope[]): Promise<TestMerchant> {
    const key = await api.app
      .get(ApiKeysService)
      .create({ merchantId: merchant.id, name: `Only ${scopes.join(', ')}`, scopes });
    return { ...merchant, apiKey: key.api_key, apiKeyId: key.id };
  }

  /** A refund of an underpaid session (60 received), waiting for the customer's address. */
  async function waitingRefund(
    headers: Record<string, string> = {},
  ): Promise<{ sessionId: string; refund: RefundBody }> {
    const session = await paidSession(api, merchant, {
      network: 'ETHEREUM',
      amount: '80',
      received: '60',
      status: 'Underpaid',
    });
    const { body } = await postSessionRefund(api, merchant, session.id, {}, headers).expect(201);
    return { sessionId: session.id, refund: body as RefundBody };
  }

  const linkOf = (refunds: RefundBody[], id: string) =>
    refunds.find((refund) => refund.id === id)?.destination_url;

  it('gives the link to refunds:write callers only, never to readers or a view as the merchant', async () => {
    const { sessionId, refund } = await waitingRefund();
    const link = refund.destination_url!;
    expect(link).toContain(`#refund=${refund.id}&secret=`);
    const byId = `/v1/refunds/${refund.id}`;
    const bySession = `/v1/refunds?session_id=${sessionId}`;

    // The full key and a restricted key that may move refunds read it, by id and in the list.
    const writer = await restrictedKey(['refunds:read', 'refunds:write']);
    for (const caller of [merchant, writer]) {
      const one = await api.get(byId, caller).expect(200);
      expect(one.body.destination_url).toBe(link);
      expect(one.headers['cache-control']).toBe('no-store');
      const list = await api.get(bySession, caller).expect(200);
      expect(linkOf(list.body, refund.id)).toBe(link);
      expect(list.headers['cache-control']).toBe('no-store');
    }

    // A reading key: the refund, without its link.
    const reader = await restrictedKey(['refunds:read']);
    const read = await api.get(byId, reader).expect(200);
    expect(read.body).toEqual({ ...refund, destination_url: null });
    expect(read.headers['cache-control']).toBe('no-store');
    const listed = await api.get(bySession, reader).expect(200);
    expect(listed.body).toHaveLength(1);
    expect(linkOf(listed.body, refund.id)).toBeNull();

    // The console: an owner reads it; a viewer and a support member do not.
    const owner = await signedInMember(api, merchant, 'owner');
    expect((await owner.agent.get(byId).expect(200)).body.destination_url).toBe(link);
    for (const role of ['viewer', 'support'] as const) {
      const member = await signedInMember(api, merchant, role);
      const one = await member.agent.get(byId).expect(200);
      expect(one.body).toMatchObject({ id: refund.id, destination_url: null });
      const list = await member.agent.get(bySession).expect(200);
      expect(linkOf(list.body, refund.id)).toBeNull();
    }

    // An operator viewing as the merchant: null too.
    const operator = await signedInOperator(api, 'admin');
    await operator.agent
      .post('/ops/api/view-as')
      .set(operator.unsafe)
      .send({ merchant_id: merchant.id, reason: 'Ticket 4712: refund link exposure check' })
      .expect(201);
    const viewed = await operator.agent.get(byId).expect(200);
    expect(viewed.body).toMatchObject({ id: refund.id, destination_url: null });
    const viewedList = await operator.agent.get(bySession).expect(200);
    expect(linkOf(viewedList.body, refund.id)).toBeNull();

    // The secret appears in none of the readers' answers.
    const secret = new URL(link).hash;
    for (const text of [read.text, listed.text, viewed.text, viewedList.text]) {
      expect(text).not.toContain(secret.slice(-20));
    }
  });

  it('answers a replayed creation with the link only while the refund still waits', async () => {
    const key = randomUUID();
    const { sessionId, refund } = await waitingRefund({ 'Idempotency-Key': key });
    expect(refund.destination_url).not.toBeNull();
    const replay = () =>
      postSessionRefund(api, merchant, sessionId, {}, { 'Idempotency-Key': key }).expect(201);
    const waiting = await replay();
    expect(waiting.headers['idempotent-replayed']).toBe('true');
    expect(waiting.headers['cache-control']).toBe('no-store');
    expect(waiting.body.destination_url).toBe(refund.destination_url);

    // The customer gives the address: the link opens nothing any more, and a replay says so.
    await postRefundDestination(api, sessionId, refund.id, {
      to_address: randomEvmAddress(),
    }).expect(200);
    const moved = await replay();
    expect(moved.headers['idempotent-replayed']).toBe('true');
    // The stored answer, as the first one was, except the link.
    expect(moved.body).toEqual({ ...refund, destination_url: null });
    expect((await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200)).body).toMatchObject({
      status: 'Pending',
      destination_url: null,
    });
  });

  it('refuses the customer’s retry of the form for a refund canceled since, with its status', async () => {
    const { sessionId, refund } = await waitingRefund();
    const to = randomEvmAddress();
    const form = () => postRefundDestination(api, sessionId, refund.id, { to_address: to });
    await form().expect(200);
    // A retry while it is on its way: the first answer again (a lost response).
    expect((await form().expect(200)).body).toMatchObject({ id: refund.id, status: 'Pending' });

    await api.post(`/v1/refunds/${refund.id}/cancel`, merchant, {}).expect(200);
    const { body } = await form().expect(409);
    expect(body.error).toMatchObject({
      code: 'invalid_state',
      param: 'to_address',
      message: 'This refund does not wait for an address any more (it is Canceled).',
    });
    expect((await api.get(`/v1/refunds/${refund.id}`, merchant).expect(200)).body.status).toBe(
      'Canceled',
    );
    expect(await api.count('payouts', `refund_id = $1 AND status = 'Rejected'`, [refund.id])).toBe(
      1,
    );
  });
});
