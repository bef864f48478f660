import { COMMANDS } from '../../apps/cli/src/commands';
import { ConsoleMember, SAME_ORIGIN, signedInMember } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface AuditRow {
  action: string;
  actor_type: string;
  actor_id: string | null;
  merchant_id: string | null;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
}

const WEBHOOK = { url: 'https://8.8.8.8/hooks/console-audit-coverage' };

/** docs/console.md: every change made from the console or the CLI leaves an audit entry. */
describe('Console audit coverage: /v1 changes by console users, CLI key commands', () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let member: ConsoleMember;

  beforeAll(async () => {
    api = await TestApi.start();
    merchant = await api.createMerchant({ name: 'Console Audit Coverage Shop' });
    member = await signedInMember(api, merchant, 'owner', 'audit-coverage');
  });

  afterAll(async () => {
    await api.dataSource.query(`DELETE FROM webhook_endpoints WHERE merchant_id = $1`, [
      merchant.id,
    ]);
    await api.close();
  });

  const entriesOf = (where: string, params: unknown[]): Promise<AuditRow[]> =>
    api.dataSource.query(
      `SELECT action, actor_type, actor_id, merchant_id, target_type, target_id, details, ip,
              user_agent
         FROM console_audit_log WHERE ${where} ORDER BY created_at, id`,
      params,
    );

  const apiEntriesOfMember = () =>
    entriesOf(`actor_id = $1 AND action LIKE 'api.%'`, [member.userId]);

  it('audits a console user creating and deleting a webhook endpoint through /v1', async () => {
    const unsafe = { ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf, 'User-Agent': 'audit-test/1' };
    const created = await member.agent
      .post('/v1/webhook-endpoints')
      .set(unsafe)
      .send(WEBHOOK)
      .expect(201);
    await waitFor(async () => (await apiEntriesOfMember()).length === 1, 30_000, 'audit entry');
    const [entry] = await apiEntriesOfMember();
    expect(entry).toEqual({
      action: 'api.POST /v1/webhook-endpoints',
      actor_type: 'console_user',
      actor_id: member.userId,
      merchant_id: merchant.id,
      target_type: 'webhook_endpoint',
      target_id: created.body.id,
      details: {},
      ip: expect.any(String),
      user_agent: 'audit-test/1',
    });
    // Never the request body: the URL (an address) is nowhere in the entry.
    expect(JSON.stringify(entry)).not.toContain('8.8.8.8');

    await member.agent.delete(`/v1/webhook-endpoints/${created.body.id}`).set(unsafe).expect(204);
    await waitFor(async () => (await apiEntriesOfMember()).length === 2, 30_000, 'audit entry');
    const deleted = (await apiEntriesOfMember())[1];
    expect(deleted).toMatchObject({
      action: 'api.DELETE /v1/webhook-endpoints/:id',
      target_id: created.body.id,
    });
  });

  it('audits neither a refused change, a read, nor a change made with an API key', async () => {
    const before = (await apiEntriesOfMember()).length;
    await member.agent
      .post('/v1/webhook-endpoints')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf })
      .send({ url: 'not a url' })
      .expect(400);
    await member.agent.get('/v1/webhook-endpoints').expect(200);
    const withKey = await api.post('/v1/webhook-endpoints', merchant, WEBHOOK).expect(201);
    // A later console change is audited: by then the earlier ones would have been too.
    const marker = await member.agent
      .post('/v1/webhook-endpoints')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': member.csrf })
      .send(WEBHOOK)
      .expect(201);
    await waitFor(
      async () => (await apiEntriesOfMember()).some((e) => e.target_id === marker.body.id),
      30_000,
      'the marker entry',
    );
    expect((await apiEntriesOfMember()).length).toBe(before + 1);
    expect(await entriesOf(`target_id = $1`, [withKey.body.id])).toEqual([]);
  });

  it('audits the CLI: merchants:create, keys:create and keys:revoke, as the CLI', async () => {
    const made = (await COMMANDS['merchants:create'](
      api.app,
      { name: 'Audited From CLI' },
      [],
    )) as { merchant_id: string; api_key_id: string };
    expect(await entriesOf(`merchant_id = $1`, [made.merchant_id])).toEqual([
      expect.objectContaining({
        action: 'merchant.created',
        actor_type: 'cli',
        actor_id: null,
        target_type: 'merchant',
        target_id: made.merchant_id,
        details: expect.objectContaining({ api_key_id: made.api_key_id }),
      }),
    ]);

    const key = (await COMMANDS['keys:create'](api.app, { merchant: made.merchant_id }, [])) as {
      api_key_id: string;
      api_key: string;
    };
    await COMMANDS['keys:revoke'](api.app, { key: key.api_key_id }, []);
    const entries = await entriesOf(`merchant_id = $1 AND target_id = $2`, [
      made.merchant_id,
      key.api_key_id,
    ]);
    expect(entries.map((e) => [e.action, e.actor_type, e.target_type])).toEqual([
      ['api_key.created', 'cli', 'api_key'],
      ['api_key.revoked', 'cli', 'api_key'],
    ]);
    // Never the key itself.
    expect(JSON.stringify(entries)).not.toContain(key.api_key);
    expect(
      await api.count('api_keys', 'id = $1 AND revoked_at IS NOT NULL', [key.api_key_id]),
    ).toBe(1);
  });
});
