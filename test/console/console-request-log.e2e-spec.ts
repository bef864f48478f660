import request from 'supertest';
import {
  REQUEST_LOG_RETENTION_DAYS,
  RequestLogRecord,
  RequestLogRepository,
  RequestLogRetention,
  RequestLogWriter,
} from '@app/console/request-log';
import { ConsoleMember, SAME_ORIGIN, signedInMember } from '../support/console-identity';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const SESSIONS = '/v1/checkout/sessions';
const REQUEST_LOG = '/console/api/request-log';

interface LoggedRow extends RequestLogRecord {
  merchant_id: string;
}

describe('Console request log', () => {
  let api: TestApi;
  let shop: TestMerchant;
  let neighbour: TestMerchant;
  let testStarted: Date;

  beforeAll(async () => {
    api = await TestApi.start();
    shop = await api.createMerchant({ name: 'Request Log Shop' });
    neighbour = await api.createMerchant({ name: 'Request Log Neighbour' });
    testStarted = new Date(Date.now() - 1_000);
  });

  afterAll(() => api.close());

  const rowsOf = (merchant: TestMerchant): Promise<LoggedRow[]> =>
    api.dataSource.query(
      `SELECT * FROM api_request_log WHERE merchant_id = $1 ORDER BY created_at, id`,
      [merchant.id],
    );
  const rowsWithRequestId = async (requestId: string): Promise<number> =>
    api.count('api_request_log', 'request_id = $1', [requestId]);
  const waitForRows = (merchant: TestMerchant, count: number) =>
    waitFor(async () => (await rowsOf(merchant)).length >= count, 30_000, `${count} log rows`);

  describe('writing', () => {
    // The calls of the shop, with what each answered; logged in the background.
    const calls: Array<{ method: string; path: string; status: number; requestId: string }> = [];
    let unauthenticatedRequestId: string;
    let healthRequestId: string;

    beforeAll(async () => {
      const record = (method: string, path: string, response: request.Response) =>
        calls.push({
          method,
          path,
          status: response.status,
          requestId: String(response.headers['request-id']),
        });
      // A query string that could carry something private: it must never be stored.
      record(
        'GET',
        SESSIONS,
        await api.get(`${SESSIONS}?page_size=2&search_text=TXyz-secret-ish`, shop).expect(200),
      );
      record('GET', '/v1/events', await api.get('/v1/events', shop).expect(200));
      record(
        'GET',
        `${SESSIONS}/cs_missing`,
        await api.get(`${SESSIONS}/cs_missing`, shop).expect(404),
      );
      record('GET', SESSIONS, await api.get(`${SESSIONS}?page_size=abc`, shop).expect(400));
      record(
        'POST',
        SESSIONS,
        await api.post(SESSIONS, shop, { pricing_amount: 'ten dollars' }).expect(400),
      );
      await api.get('/v1/events', neighbour).expect(200);

      const unauthenticated = await request(api.http).get('/v1/events').expect(401);
      unauthenticatedRequestId = String(unauthenticated.headers['request-id']);
      const health = await request(api.http).get('/health/live').expect(200);
      healthRequestId = String(health.headers['request-id']);

      await waitForRows(shop, calls.length);
      await waitForRows(neighbour, 1);
    });

    it("records each call of the merchant's key, in the background, with what it answered", async () => {
      const [key] = await api.dataSource.query(`SELECT key_hint FROM api_keys WHERE id = $1`, [
        shop.apiKeyId,
      ]);
      const rows = await rowsOf(shop);
      expect(rows.map((row) => row.request_id).sort()).toEqual(
        calls.map((call) => call.requestId).sort(),
      );
      for (const call of calls) {
        const row = rows.find((candidate) => candidate.request_id === call.requestId);
        expect(row).toMatchObject({
          merchant_id: shop.id,
          livemode: false,
          method: call.method,
          path: call.path,
          status: call.status,
          actor: 'api_key',
          api_key_id: shop.apiKeyId,
          key_hint: key.key_hint,
          console_user_id: null,
        });
        expect(row?.key_hint).toMatch(/^sk_test_…[A-Za-z0-9]{4}$/);
        expect(Number.isInteger(row?.latency_ms)).toBe(true);
        expect(row?.latency_ms).toBeGreaterThanOrEqual(0);
        expect(new Date(row!.created_at).getTime()).toBeGreaterThanOrEqual(testStarted.getTime());
        expect(new Date(row!.created_at).getTime()).toBeLessThanOrEqual(Date.now());
      }
    });

    it('never stores a query string', async () => {
      const rows = await rowsOf(shop);
      expect(rows.filter((row) => /[?#]/.test(row.path))).toEqual([]);
      expect(JSON.stringify(rows)).not.toContain('secret-ish');
    });

    it("keeps each merchant's calls apart", async () => {
      const rows = await rowsOf(neighbour);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ path: '/v1/events', api_key_id: neighbour.apiKeyId });
    });

    it('logs neither unauthenticated requests nor health checks', async () => {
      // Later calls were already written (waited for above), so these would be too.
      expect(await rowsWithRequestId(unauthenticatedRequestId)).toBe(0);
      expect(await rowsWithRequestId(healthRequestId)).toBe(0);
    });

    it('does not log the console API itself, and no API key may read it', async () => {
      const response = await api.get(REQUEST_LOG, shop).expect(403);
      expect(response.body.error.code).toBe('insufficient_scope');
      await api.get('/v1/events', shop).expect(200);
      await waitForRows(shop, calls.length + 1);
      expect(await rowsWithRequestId(String(response.headers['request-id']))).toBe(0);
    });
  });

  describe('reading: GET /console/api/request-log', () => {
    let reader: TestMerchant;
    let developer: ConsoleMember;
    // Newest first, as the list returns them.
    let expectedIds: string[];

    beforeAll(async () => {
      reader = await api.createMerchant({ name: 'Request Log Reader' });
      developer = await signedInMember(api, reader, 'developer', 'request-log');
      const ids: string[] = [];
      for (const path of ['/v1/events', `${SESSIONS}/cs_nope`, '/v1/events', SESSIONS]) {
        const response = await api.get(path, reader);
        ids.push(String(response.headers['request-id']));
      }
      const created = await api.post(SESSIONS, reader, {});
      ids.push(String(created.headers['request-id']));
      // The console calls the same /v1 endpoints with its session cookie.
      const bySession = await developer.agent.get('/v1/balances').set(SAME_ORIGIN).expect(200);
      ids.push(String(bySession.headers['request-id']));
      await waitForRows(reader, ids.length);
      expectedIds = ids.reverse();
    });

    const getLog = (query = '', member = developer) =>
      member.agent.get(`${REQUEST_LOG}${query}`).set(SAME_ORIGIN);

    it("records a console session's /v1 call as its user, without a key", async () => {
      const [row] = (await rowsOf(reader)).filter((entry) => entry.request_id === expectedIds[0]);
      expect(row).toMatchObject({
        path: '/v1/balances',
        status: 200,
        actor: 'console_user',
        console_user_id: developer.userId,
        api_key_id: null,
        key_hint: null,
      });
    });

    it("answers the merchant's entries newest first, paged by request id", async () => {
      const first = await getLog('?page_size=2').expect(200);
      expect(first.headers['x-total-count']).toBe(String(expectedIds.length));
      expect(first.body).toHaveLength(2);
      expect(first.body[0]).toEqual({
        request_id: expectedIds[0],
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        livemode: false,
        method: 'GET',
        path: '/v1/balances',
        status: 200,
        actor: 'console_user',
        api_key_id: null,
        key_hint: null,
        console_user_id: developer.userId,
        latency_ms: expect.any(Number),
      });
      const seen: string[] = [];
      let query: string | undefined = '?page_size=2';
      while (query) {
        const page = await getLog(query).expect(200);
        seen.push(...(page.body as Array<{ request_id: string }>).map((row) => row.request_id));
        const next = /<[^>?]*(\?[^>]*)>; rel="next"/.exec(String(page.headers.link ?? ''));
        query = next?.[1];
      }
      expect(seen).toEqual(expectedIds);
    });

    it('starts after a cursor and links the next page by cursor', async () => {
      const page = await getLog(`?page_size=2&starting_after=${expectedIds[1]}`).expect(200);
      expect(page.body.map((row: { request_id: string }) => row.request_id)).toEqual(
        expectedIds.slice(2, 4),
      );
      expect(page.headers.link).toContain(`starting_after=${expectedIds[3]}`);
    });

    it('filters by status and by method', async () => {
      const notFound = await getLog('?status=404').expect(200);
      expect(notFound.body.map((row: { request_id: string }) => row.request_id)).toEqual([
        expectedIds[4],
      ]);
      const posts = await getLog('?method=POST').expect(200);
      expect(posts.body.map((row: { request_id: string }) => row.request_id)).toEqual([
        expectedIds[1],
      ]);
      const either = await getLog('?status=200&status=404').expect(200);
      expect(either.headers['x-total-count']).toBe('5');
      const invalid = await getLog('?status=2xx').expect(400);
      expect(invalid.body.error.param).toBe('status');
    });

    it("refuses another merchant's request id as a cursor", async () => {
      const [other] = await rowsOf(shop);
      const response = await getLog(`?starting_after=${other.request_id}`).expect(400);
      expect(response.body.error).toMatchObject({
        code: 'parameter_invalid',
        param: 'starting_after',
      });
    });

    it('is refused to a role without request_log:read', async () => {
      const viewer = await signedInMember(api, reader, 'viewer', 'request-log-viewer');
      const response = await getLog('', viewer).expect(403);
      expect(response.body.error.code).toBe('permission_denied');
    });

    it('is not itself logged', async () => {
      const response = await getLog().expect(200);
      // A later call of another merchant: once its row is written, an earlier row would be too.
      const later = await api.get('/v1/events', neighbour).expect(200);
      const laterId = String(later.headers['request-id']);
      await waitFor(async () => (await rowsWithRequestId(laterId)) === 1, 30_000, 'later row');
      expect(await rowsWithRequestId(String(response.headers['request-id']))).toBe(0);
    });

    it('combines a method and a status filter (the repository query)', async () => {
      const { rows } = await api.app
        .get(RequestLogRepository)
        .list(
          { merchantId: reader.id, methods: ['GET'], statuses: [200] },
          { page: 1, pageSize: 100, offset: 0, includeTotal: false },
        );
      expect(rows.map((row) => row.request_id)).toEqual([
        expectedIds[0],
        expectedIds[2],
        expectedIds[3],
        expectedIds[5],
      ]);
    });
  });

  describe('retention', () => {
    it(`deletes rows older than ${REQUEST_LOG_RETENTION_DAYS} days in batches, and keeps the rest`, async () => {
      const old = await api.createMerchant({ name: 'Request Log Old' });
      const insert = (requestId: string, ageDays: number) =>
        api.dataSource.query(
          `INSERT INTO api_request_log (merchant_id, livemode, method, path, status, actor,
             api_key_id, key_hint, request_id, latency_ms, created_at)
           VALUES ($1, false, 'GET', '/v1/events', 200, 'api_key', $2, 'sk_test_…abcd', $3, 1,
                   now() - make_interval(days => $4))`,
          [old.id, old.apiKeyId, requestId, ageDays],
        );
      for (let i = 0; i < 5; i++) await insert(`req_expired_${old.id}_${i}`, 31 + i);
      await insert(`req_kept_${old.id}`, 29);

      const deleted = await new RequestLogRetention(api.dataSource).purgeExpired(2);

      expect(deleted).toBeGreaterThanOrEqual(5);
      expect((await rowsOf(old)).map((row) => row.request_id)).toEqual([`req_kept_${old.id}`]);
      expect((await rowsOf(shop)).length).toBeGreaterThan(0);
    });
  });

  describe('shutdown', () => {
    it('writes what is still buffered when the API closes', async () => {
      const closing = await TestApi.start();
      const response = await closing.get('/v1/events', shop).expect(200);
      const requestId = String(response.headers['request-id']);
      // Recorded just before close: certainly still in memory when the shutdown begins.
      closing.app.get(RequestLogWriter).record({
        merchantId: shop.id,
        livemode: false,
        method: 'DELETE',
        path: '/v1/webhook_endpoints/we_x',
        status: 204,
        actor: 'api_key',
        apiKeyId: shop.apiKeyId,
        consoleUserId: null,
        requestId: `req_at_shutdown_${shop.id}`,
        latencyMs: 0,
        createdAt: new Date(),
      });
      await closing.close();

      expect(await rowsWithRequestId(requestId)).toBe(1);
      expect(await rowsWithRequestId(`req_at_shutdown_${shop.id}`)).toBe(1);
    });
  });
});
