import request from 'supertest';
import {
  ConsoleMember,
  inviteMember,
  PASSWORD,
  SAME_ORIGIN,
  signedInMember,
  uniqueEmail,
} from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';

const WEBHOOK = { url: 'https://8.8.8.8/hooks/console-csrf' };

describe('Console CSRF protection (issue 25)', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let member: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console CSRF Shop' });
    member = await signedInMember(api, merchant, 'owner');
  });

  afterAll(async () => {
    await api.dataSource.query(`DELETE FROM webhook_endpoints WHERE merchant_id = $1`, [
      merchant.id,
    ]);
    await api.close();
  });

  const withToken = () => ({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf });

  it('refuses an unsafe /v1 request made with the session cookie but no CSRF token', async () => {
    const refused = await member.agent.post('/v1/webhook-endpoints').send(WEBHOOK).expect(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'csrf_failed' });
    const wrong = await member.agent
      .post('/v1/webhook-endpoints')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': `${member.csrf.slice(0, -2)}xx` })
      .send(WEBHOOK)
      .expect(403);
    expect(wrong.body.error.code).toBe('csrf_failed');
    expect(await api.count('webhook_endpoints', 'merchant_id = $1', [merchant.id])).toBe(0);
    // With it, the same request goes through (the console calls /v1 like this).
    await member.agent.post('/v1/webhook-endpoints').set(withToken()).send(WEBHOOK).expect(201);
    expect(await api.count('webhook_endpoints', 'merchant_id = $1', [merchant.id])).toBe(1);
  });

  it('refuses an unsafe console API request without the CSRF token', async () => {
    const refused = await member.agent
      .post('/console/api/team/invitations')
      .send({ email: uniqueEmail('csrf'), role: 'viewer' })
      .expect(403);
    expect(refused.body.error.code).toBe('csrf_failed');
    const sent = await member.agent
      .post('/console/api/team/invitations')
      .set(withToken())
      .send({ email: uniqueEmail('csrf'), role: 'viewer' })
      .expect(201);
    expect(sent.body.invitation_url).toContain('/console/accept-invitation#token=');
  });

  it('refuses a cross-site request even with the token', async () => {
    // `none` too: the console only ever sends same-origin requests (docs/console.md).
    for (const site of ['cross-site', 'same-site', 'none']) {
      const refused = await member.agent
        .post('/v1/webhook-endpoints')
        .set({ 'Sec-Fetch-Site': site, 'X-CSRF-Token': member.csrf })
        .send(WEBHOOK)
        .expect(403);
      expect(refused.body.error.code).toBe('csrf_failed');
      const console = await member.agent
        .post('/console/api/session/merchant')
        .set({ 'Sec-Fetch-Site': site, 'X-CSRF-Token': member.csrf })
        .send({ merchant_id: merchant.id })
        .expect(403);
      expect(console.body.error.code).toBe('csrf_failed');
    }
  });

  it('needs no token for safe requests, nor for a bearer key that also holds a cookie', async () => {
    await member.agent.get('/v1/balances').expect(200);
    await member.agent.get('/v1/webhook-endpoints').set('Sec-Fetch-Site', 'cross-site').expect(200);
    // A key decides alone: the cookie the client also sends is not looked at.
    await member.agent
      .post('/v1/webhook-endpoints')
      .set('Authorization', `Bearer ${merchant.apiKey}`)
      .send({ url: 'https://8.8.8.8/hooks/console-csrf-key' })
      .expect(201);
  });

  it('before a session: a same-origin JSON request only', async () => {
    const crossSite = await request(api.http)
      .post('/console/api/sign-in')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ email: member.email, password: PASSWORD })
      .expect(403);
    expect(crossSite.body.error.code).toBe('csrf_failed');
    const form = await request(api.http)
      .post('/console/api/sign-in')
      .type('form')
      .send({ email: member.email, password: PASSWORD })
      .expect(403);
    expect(form.body.error.code).toBe('csrf_failed');
    const { token } = await inviteMember(api, merchant, uniqueEmail('csrf-accept'), 'viewer');
    const accept = await request(api.http)
      .post('/console/api/invitations/accept')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ token, password: PASSWORD })
      .expect(403);
    expect(accept.body.error.code).toBe('csrf_failed');
    // Still pending: the refused request used nothing up.
    await request(api.http)
      .post('/console/api/invitations/lookup')
      .set(SAME_ORIGIN)
      .send({ token })
      .expect(200);
  });
});
