import { SAME_ORIGIN, signedInMember } from '../support/console-identity';
import { TestApi } from '../support/test-app';
import { waitFor } from '../support/wait-for';

interface AuditRow {
  action: string;
  target_type: string | null;
  target_id: string | null;
}

/*
 * The Sub-merchants page edits and disables through PATCH /v1/sub-merchants/{code}: the console's
 * audit entry names the sub-merchant by its code (the API gives it no id), for a creation too; a
 * code of another merchant is 404 and leaves nothing in the log; a bad field is named.
 */
describe('Console: sub-merchant changes through /v1 in the audit log', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await TestApi.start();
  });

  afterAll(async () => {
    await api.close();
  });

  it('audits create, edit and disable with the sub-merchant as target; another merchant gets 404', async () => {
    const psp = await api.createMerchant({ name: 'Audited Sub-merchant PSP', kind: 'psp' });
    const other = await api.createMerchant({ name: 'Other Sub-merchant PSP', kind: 'psp' });
    const owner = await signedInMember(api, psp, 'owner', 'sub-merchant-audit');
    const stranger = await signedInMember(api, other, 'owner', 'sub-merchant-stranger');
    const unsafe = { ...SAME_ORIGIN, 'X-CSRF-Token': owner.csrf };
    const entries = (): Promise<AuditRow[]> =>
      api.dataSource.query(
        `SELECT action, target_type, target_id FROM console_audit_log
          WHERE actor_id = $1 AND action LIKE 'api.%' ORDER BY created_at, id`,
        [owner.userId],
      );

    await owner.agent
      .post('/v1/sub-merchants')
      .set(unsafe)
      .send({ code: 'audited-1', name: 'Audited One' })
      .expect(201);
    const edited = await owner.agent
      .patch('/v1/sub-merchants/audited-1')
      .set(unsafe)
      .send({ name: 'Audited One Ltd', email: 'billing@audited.example' })
      .expect(200);
    expect(edited.body).toMatchObject({ name: 'Audited One Ltd', status: 'active' });
    await owner.agent
      .patch('/v1/sub-merchants/audited-1')
      .set(unsafe)
      .send({ status: 'disabled' })
      .expect(200);
    await waitFor(async () => (await entries()).length === 3, 30_000, 'three audit entries');
    expect(await entries()).toEqual([
      { action: 'api.POST /v1/sub-merchants', target_type: 'sub_merchant', target_id: 'audited-1' },
      {
        action: 'api.PATCH /v1/sub-merchants/:code',
        target_type: 'sub_merchant',
        target_id: 'audited-1',
      },
      {
        action: 'api.PATCH /v1/sub-merchants/:code',
        target_type: 'sub_merchant',
        target_id: 'audited-1',
      },
    ]);

    // A bad status is refused, naming the field; nothing changes, nothing is audited.
    const invalid = await owner.agent
      .patch('/v1/sub-merchants/audited-1')
      .set(unsafe)
      .send({ status: 'paused' })
      .expect(400);
    expect(invalid.body.error).toMatchObject({ param: 'status' });
    expect(invalid.body.error.message).toContain('status');

    // Another merchant's member: the code is not theirs, 404, as if it did not exist.
    const foreign = await stranger.agent
      .patch('/v1/sub-merchants/audited-1')
      .set({ ...SAME_ORIGIN, 'X-CSRF-Token': stranger.csrf })
      .send({ status: 'active' })
      .expect(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing' });
    const [row]: Array<{ name: string; status: string }> = await api.dataSource.query(
      `SELECT name, status FROM sub_merchants WHERE merchant_id = $1 AND code = 'audited-1'`,
      [psp.id],
    );
    expect(row).toEqual({ name: 'Audited One Ltd', status: 'disabled' });
    expect(
      await api.count('console_audit_log', `actor_id = $1 AND action LIKE 'api.%'`, [
        stranger.userId,
      ]),
    ).toBe(0);
    expect(await entries()).toHaveLength(3);
  });
});
