import { BuiltQuery, ListScope, ListSpec, listCountQuery, listPageQuery } from '@app/common';
import { EVENT_TYPES } from '@app/events';
import { sessionListSpec } from '../../libs/checkout/src/checkout-sessions.repository';
import { unmatchedListSpec } from '../../libs/deposits/src/unmatched-transfers/unmatched-transfers.repository';
import { endpointListSpec } from '../../libs/events/src/endpoints/webhook-endpoints.repository';
import { eventListSpec } from '../../libs/events/src/events/events.repository';
import { payoutListSpec } from '../../libs/payouts/src/payouts.repository';
import { subMerchantListSpec } from '../../libs/sub-merchants/src/sub-merchants.repository';
import {
  seedEvents,
  seedPayouts,
  seedSessions,
  seedSubMerchants,
  seedUnmatchedTransfers,
  seedWebhookEndpoints,
} from '../../bench/lists/seed';
import { TestApi, TestMerchant } from '../support/test-app';

/**
 * The lists stay index range scans at any size. Tables are filled in SQL (tens of thousands of
 * rows, ANALYZEd) and the SQL that the repositories build for the API is EXPLAINed: no list may
 * read a whole table (Seq Scan) or sort more than a page's worth of rows. The thresholds are the
 * planner's own row estimates, so the test checks the plan's shape, not the machine's speed.
 */

const BIG_TABLES = new Set([
  'checkout_sessions',
  'session_transactions',
  'payouts',
  'events',
  'unmatched_transfers',
  'webhook_endpoints',
  'sub_merchants',
]);
// A page may sort a page's worth of rows, or a search's few hits; more is sorting the table.
const MAX_SORTED_PAGE_ROWS = 500;
// The capped count stops after 1,001 index entries; the planner may rather sort a set it knows
// to be small (a few thousand matches) than walk an index, never a merchant's whole list.
const MAX_SORTED_COUNT_ROWS = 5000;
// Rows a scan may touch (returned plus filtered out), measured by EXPLAIN ANALYZE: an index scan
// in the right order that filters its way through a whole list is as slow as a Seq Scan.
const MAX_READ_PAGE_ROWS = 500;
const MAX_READ_COUNT_ROWS = 5000;
const PAGE = 21; // page_size 20 plus the row that tells whether there is a next page

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Plan Rows': number;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const SCAN_NODES = new Set([
  'Seq Scan',
  'Index Scan',
  'Index Only Scan',
  'Bitmap Index Scan',
  'Bitmap Heap Scan',
]);

/** Rows a scan node touched over all its loops: those it returned and those it threw away. */
function rowsRead(node: PlanNode): number {
  if (!SCAN_NODES.has(node['Node Type'])) return 0;
  const perLoop =
    node['Actual Rows'] +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Index Recheck'] ?? 0);
  return perLoop * node['Actual Loops'];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

const INDEX_NODES = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

describe('List query plans at scale', () => {
  let api: TestApi;
  let big: TestMerchant;
  let psp: TestMerchant;
  const SUB = 'sm_plan_sub';
  const now = new Date();

  async function plan(query: BuiltQuery): Promise<PlanNode[]> {
    const [row]: Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }> = await api.dataSource.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`,
      query.params,
    );
    return flatten(row['QUERY PLAN'][0].Plan);
  }

  /**
   * The page, the page after a cursor, and the capped count: index-driven, reading a bounded
   * number of rows. `maxRead` raises the page bound for a list documented to filter (sub-merchant
   * text search reads the PSP's sub-merchants).
   */
  async function expectIndexDriven(
    spec: ListSpec,
    cursorId?: string,
    maxRead = MAX_READ_PAGE_ROWS,
  ): Promise<void> {
    const queries: Array<[string, BuiltQuery, number, number]> = [
      // As the API sends it: the page and its capped count in one statement.
      [
        'first page',
        listPageQuery(spec, PAGE, 0, undefined, 1000),
        MAX_SORTED_COUNT_ROWS,
        Math.max(maxRead, MAX_READ_COUNT_ROWS),
      ],
      ['first page alone', listPageQuery(spec, PAGE, 0), MAX_SORTED_PAGE_ROWS, maxRead],
      [
        'capped count',
        listCountQuery(spec, 1000),
        MAX_SORTED_COUNT_ROWS,
        Math.max(maxRead, MAX_READ_COUNT_ROWS),
      ],
    ];
    if (cursorId) {
      const [position]: Array<{ created_at: string }> = await api.dataSource.query(
        `SELECT created_at::text AS created_at FROM ${spec.table} WHERE id = $1`,
        [cursorId],
      );
      const cursor = { createdAt: position.created_at, id: cursorId };
      queries.push([
        'page after a cursor',
        listPageQuery(spec, PAGE, 0, cursor),
        MAX_SORTED_PAGE_ROWS,
        maxRead,
      ]);
    }
    for (const [what, query, maxSorted, maxReadRows] of queries) {
      const nodes = await plan(query);
      const problems = nodes
        .filter(
          (node) =>
            (node['Node Type'] === 'Seq Scan' && BIG_TABLES.has(node['Relation Name'] ?? '')) ||
            (node['Node Type'] === 'Sort' && node['Plan Rows'] > maxSorted) ||
            rowsRead(node) > maxReadRows,
        )
        .map(summary);
      if (!nodes.some((node) => INDEX_NODES.has(node['Node Type']))) problems.push('no index');
      const described = `${spec.table} ${what}: ${nodes.map(summary).join(' > ')}`;
      expect({ described, problems }).toEqual({ described, problems: [] });
    }
  }

  const summary = (node: PlanNode) =>
    `${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''}` +
    `${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}` +
    ` (est. ${node['Plan Rows']}${SCAN_NODES.has(node['Node Type']) ? `, read ${rowsRead(node)}` : ''})`;

  // it.each tables are built before beforeAll runs: they name the merchant, resolved later.
  const idOf = (name: string) => (name === 'big' ? big.id : psp.id);
  const own: ListScope = { kind: 'own' };
  const all: ListScope = { kind: 'all' };
  const one: ListScope = { kind: 'one', subMerchantId: SUB };

  const seededMerchants: string[] = [];

  beforeAll(async () => {
    api = await TestApi.start();
    big = await api.createMerchant({ name: 'Big' });
    psp = await api.createMerchant({ name: 'Platform', kind: 'psp' });
    const other = await api.createMerchant({ name: 'Other' });
    seededMerchants.push(big.id, psp.id, other.id);
    // One connection without the API's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS): a seed
    // of 40,000 sessions in one statement, or the VACUUM, outlasts it on a loaded machine.
    const ds = api.dataSource.createQueryRunner();
    await ds.connect();
    try {
      await ds.query('SET statement_timeout = 0');
      await seedSubMerchants(ds, {
        merchantId: psp.id,
        count: 3000,
        idPrefix: 'sm_plan_',
        newest: now,
      });
      await ds.query(`UPDATE sub_merchants SET id = $1 WHERE id = 'sm_plan_1'`, [SUB]);
      const otherPsp = await api.createMerchant({ name: 'Other platform', kind: 'psp' });
      seededMerchants.push(otherPsp.id);
      await seedSubMerchants(ds, {
        merchantId: otherPsp.id,
        count: 20_000,
        idPrefix: 'sm_other_',
        newest: now,
      });
      const sessions = [
        { merchantId: big.id, count: 40_000, idPrefix: 'cs_big_' },
        { merchantId: psp.id, count: 4000, idPrefix: 'cs_psp_' },
        { merchantId: psp.id, subMerchantId: SUB, count: 8000, idPrefix: 'cs_sub_' },
        { merchantId: other.id, count: 8000, idPrefix: 'cs_other_' },
      ];
      for (const seed of sessions) await seedSessions(ds, { ...seed, newest: now });
      await seedPayouts(ds, {
        merchantId: big.id,
        count: 20_000,
        idPrefix: 'po_big_',
        newest: now,
      });
      await seedPayouts(ds, {
        merchantId: psp.id,
        subMerchantId: SUB,
        count: 4000,
        idPrefix: 'po_sub_',
        newest: now,
      });
      await seedPayouts(ds, {
        merchantId: other.id,
        count: 4000,
        idPrefix: 'po_other_',
        newest: now,
      });
      const types = EVENT_TYPES;
      await seedEvents(ds, {
        merchantId: big.id,
        count: 40_000,
        idPrefix: 'evt_big_',
        newest: now,
        types,
      });
      await seedEvents(ds, {
        merchantId: psp.id,
        subMerchantId: SUB,
        count: 8000,
        idPrefix: 'evt_sub_',
        newest: now,
        types,
      });
      await seedEvents(ds, {
        merchantId: other.id,
        count: 8000,
        idPrefix: 'evt_other_',
        newest: now,
        types,
      });
      await seedUnmatchedTransfers(ds, {
        merchantId: big.id,
        count: 10_000,
        idPrefix: 'utx_big_',
        sessionPrefix: 'cs_big_',
        newest: now,
      });
      await seedUnmatchedTransfers(ds, {
        merchantId: psp.id,
        subMerchantId: SUB,
        count: 2000,
        idPrefix: 'utx_sub_',
        sessionPrefix: 'cs_sub_',
        newest: now,
      });
      // The table holds every merchant's: the big one's are a minority, as they would be.
      await seedUnmatchedTransfers(ds, {
        merchantId: other.id,
        count: 30_000,
        idPrefix: 'utx_other_',
        sessionPrefix: 'cs_big_',
        newest: now,
      });
      await seedWebhookEndpoints(ds, {
        merchantId: other.id,
        count: 5000,
        idPrefix: 'we_other_',
        newest: now,
      });
      await seedWebhookEndpoints(ds, {
        merchantId: big.id,
        count: 3,
        idPrefix: 'we_big_',
        newest: now,
      });
      // As autovacuum leaves a table: statistics, and a visibility map for index-only scans.
      await ds.query('VACUUM ANALYZE');
    } finally {
      await ds.query('RESET statement_timeout');
      await ds.release();
    }
  }, 300_000);

  // The rows are this suite's alone: later suites share the database, and seeded Pending payouts
  // would be sent by their workers, seeded ETHEREUM transactions reset by their chain resets.
  afterAll(async () => {
    if (seededMerchants.length) {
      // The API's connections carry its statement timeout (DATABASE_STATEMENT_TIMEOUT_MS); a
      // clean-up of 60,000 sessions on a loaded machine outlasts it. One transaction without it.
      await api.dataSource.transaction(async (ds) => {
        await ds.query('SET LOCAL statement_timeout = 0');
        const merchants = [seededMerchants];
        const sessions = `SELECT id FROM checkout_sessions WHERE merchant_id = ANY($1)`;
        await ds.query(
          `DELETE FROM webhook_deliveries WHERE endpoint_id IN
           (SELECT id FROM webhook_endpoints WHERE merchant_id = ANY($1))
           OR event_id IN (SELECT id FROM events WHERE merchant_id = ANY($1))`,
          merchants,
        );
        for (const table of ['webhook_endpoints', 'events']) {
          await ds.query(`DELETE FROM ${table} WHERE merchant_id = ANY($1)`, merchants);
        }
        await ds.query(
          `DELETE FROM unmatched_transfers WHERE merchant_id = ANY($1) OR session_id IN (${sessions})`,
          merchants,
        );
        await ds.query(
          `DELETE FROM session_transactions WHERE session_id IN (${sessions})`,
          merchants,
        );
        for (const table of ['checkout_sessions', 'payouts', 'sub_merchants']) {
          await ds.query(`DELETE FROM ${table} WHERE merchant_id = ANY($1)`, merchants);
        }
      });
    }
    await api?.close();
  }, 300_000);

  describe('checkout sessions', () => {
    const base = () => ({ merchantId: big.id, scope: own });

    it.each([
      ['own (the default)', {}],
      ['one status', { statuses: ['Paid'] }],
      ['several statuses', { statuses: ['Paid', 'Underpaid', 'Pending'] }],
      ['a network', { network: 'TRON' }],
      ['created after', { createdAfter: new Date(now.getTime() - 3600_000) }],
      ['created before', { createdBefore: new Date(now.getTime() - 3600_000) }],
      [
        'a created window',
        {
          createdAfter: new Date(now.getTime() - 7200_000),
          createdBefore: new Date(now.getTime() - 3600_000),
        },
      ],
      [
        'a status and a window',
        { statuses: ['Paid'], createdBefore: new Date(now.getTime() - 3600_000) },
      ],
    ])('%s', async (_name, filter) => {
      await expectIndexDriven(sessionListSpec({ ...base(), ...filter } as never), 'cs_big_5000');
    });

    it.each([
      ['all (include_sub_merchants)', all],
      ['one sub-merchant', one],
    ])('scope %s: plain, one status, several, a network', async (_name, scope) => {
      for (const filter of [
        {},
        { statuses: ['Expired' as const] },
        { statuses: ['Paid' as const, 'Underpaid' as const] },
        { network: 'ETHEREUM' },
      ]) {
        await expectIndexDriven(
          sessionListSpec({ merchantId: psp.id, scope, ...filter }),
          'cs_sub_900',
        );
      }
    });

    it('searches by id, pay address and transaction hash, in any case, alone or filtered', async () => {
      const [target]: Array<{ pay_address: string; tx_hash: string }> = await api.dataSource.query(
        `SELECT s.pay_address, t.tx_hash FROM checkout_sessions s
           JOIN session_transactions t ON t.session_id = s.id WHERE s.id = 'cs_big_30020'`,
      );
      // Old sessions: an ordered scan that filters would have to read most of the list to reach them.
      for (const searchText of [
        'cs_big_30020',
        target.pay_address.toUpperCase(),
        target.tx_hash.toUpperCase(),
      ]) {
        await expectIndexDriven(sessionListSpec({ ...base(), searchText }));
        await expectIndexDriven(
          sessionListSpec({ ...base(), searchText, statuses: ['Paid', 'Expired'], network: 'BSC' }),
        );
      }
    });
  });

  describe('payouts', () => {
    it.each([
      ['own (the default)', {}],
      ['one status', { statuses: ['Completed'] }],
      ['several statuses', { statuses: ['Failed', 'Pending'] }],
      ['a network', { network: 'POLYGON' }],
      [
        'a created window',
        { createdAfter: new Date(now.getTime() - 7200_000), createdBefore: now },
      ],
      ['a search by id (an old payout)', { searchText: 'po_big_15077' }],
      ['a search by destination', { searchText: 'T0000' }],
    ])('%s', async (_name, filter) => {
      await expectIndexDriven(
        payoutListSpec({ merchantId: big.id, scope: own, ...filter } as never),
        'po_big_3000',
      );
    });

    it('searches by transaction hash and by a destination paid many times', async () => {
      const [row]: Array<{ tx_hash: string; to_address: string }> = await api.dataSource.query(
        `SELECT tx_hash, to_address FROM payouts WHERE id = 'po_big_15001'`,
      );
      for (const searchText of [row.tx_hash.toUpperCase(), row.to_address.toLowerCase()]) {
        await expectIndexDriven(payoutListSpec({ merchantId: big.id, scope: own, searchText }));
      }
    });

    it.each([
      ['all', all],
      ['one sub-merchant', one],
    ])('scope %s: plain, one status, a network', async (_name, scope) => {
      for (const filter of [{}, { statuses: ['Completed' as const] }, { network: 'BASE' }]) {
        await expectIndexDriven(
          payoutListSpec({ merchantId: psp.id, scope, ...filter }),
          'po_sub_50',
        );
      }
    });
  });

  describe('events', () => {
    it.each([
      ['own (the default)', 'big', own, {}],
      ['one type', 'big', own, { types: ['checkout.session.paid'] }],
      ['several types', 'big', own, { types: ['payout.completed', 'checkout.session.expired'] }],
      ['an object', 'big', own, { objectId: 'evt_big_obj100' }],
      [
        'a created window',
        'big',
        own,
        { createdAfter: new Date(now.getTime() - 7200_000), createdBefore: now },
      ],
      ['all', 'psp', all, {}],
      ['all, one type', 'psp', all, { types: ['payout.failed'] }],
      ['one sub-merchant', 'psp', one, {}],
      ['one sub-merchant, one type', 'psp', one, { types: ['payout.failed'] }],
    ])('%s', async (_name, merchant, scope, filter) => {
      await expectIndexDriven(
        eventListSpec({
          merchantId: idOf(merchant),
          scope: scope as ListScope,
          ...filter,
        } as never),
      );
    });
  });

  describe('unmatched transfers, webhook endpoints, sub-merchants', () => {
    it.each([
      ['own', 'big', own, {}],
      ['a reason', 'big', own, { reasons: ['wrong_token'] }],
      ['a status', 'big', own, { statuses: ['detected'] }],
      ['a network', 'big', own, { network: 'TRON' }],
      ['a session', 'big', own, { sessionId: 'cs_big_30' }],
      ['all', 'psp', all, {}],
      ['one sub-merchant', 'psp', one, {}],
    ])('unmatched transfers: %s', async (_name, merchant, scope, filter) => {
      await expectIndexDriven(
        unmatchedListSpec({
          merchantId: idOf(merchant),
          livemode: false,
          scope: scope as ListScope,
          ...filter,
        } as never),
      );
    });

    it('webhook endpoints, in every scope', async () => {
      for (const scope of [own, all]) {
        await expectIndexDriven(endpointListSpec({ merchantId: big.id, scope }));
      }
      await expectIndexDriven(endpointListSpec({ merchantId: psp.id, scope: one }));
    });

    it('sub-merchants: plain, by status, by text', async () => {
      for (const filter of [{}, { status: 'disabled' as const }]) {
        await expectIndexDriven(subMerchantListSpec({ merchantId: psp.id, ...filter }));
      }
      // A substring search filters the PSP's 3,000 sub-merchants, and only theirs.
      const searched = subMerchantListSpec({ merchantId: psp.id, searchText: 'shop 12' });
      await expectIndexDriven(searched, undefined, 3001);
    });
  });

  describe('over the API: X-Total-Count, include_total, starting_after, deep pages', () => {
    const SESSIONS = '/v1/checkout/sessions';
    let walker: TestMerchant;
    let walkerIds: string[];

    const idsOf = (body: Array<{ id: string }>) => body.map((item) => item.id);
    const linkTo = (link: string, rel: string) =>
      link
        .split(', ')
        .find((part) => part.endsWith(`rel="${rel}"`))
        ?.replace(/^<(.*)>; rel=".*"$/, '$1');

    beforeAll(async () => {
      walker = await api.createMerchant({ name: 'Walker' });
      // Cleaned up with the others: its seeded pay addresses are not real TRON addresses, and a
      // later suite's TRON reconciliation in this database would read them.
      seededMerchants.push(walker.id);
      // 1,205 sessions, three to a second: most pages end inside a group of equal created_at.
      await seedSessions(api.dataSource, {
        merchantId: walker.id,
        count: 1205,
        idPrefix: 'cs_walk_',
        newest: now,
      });
      const rows: Array<{ id: string }> = await api.dataSource.query(
        `SELECT id FROM checkout_sessions WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC`,
        [walker.id],
      );
      walkerIds = rows.map((row) => row.id);
    });

    it('beyond 1,000 matches sends X-Total-Count-At-Least instead of counting, and no last link', async () => {
      const response = await api.get(`${SESSIONS}?page_size=100`, walker).expect(200);
      expect(idsOf(response.body)).toEqual(walkerIds.slice(0, 100));
      expect(response.headers['x-total-count']).toBeUndefined();
      expect(response.headers['x-total-count-at-least']).toBe('1001');
      expect(response.headers.link).toBe(
        [
          `<${SESSIONS}?page=1&page_size=100>; rel="first"`,
          `<${SESSIONS}?page=2&page_size=100>; rel="next"`,
        ].join(', '),
      );
    });

    it('include_total=true counts exactly and links the last page', async () => {
      const response = await api
        .get(`${SESSIONS}?page_size=100&page=2&include_total=true`, walker)
        .expect(200);
      expect(idsOf(response.body)).toEqual(walkerIds.slice(100, 200));
      expect(response.headers['x-total-count']).toBe('1205');
      expect(response.headers['x-total-count-at-least']).toBeUndefined();
      expect(linkTo(response.headers.link, 'last')).toBe(
        `${SESSIONS}?include_total=true&page=13&page_size=100`,
      );
      const invalid = await api.get(`${SESSIONS}?include_total=yes`, walker).expect(400);
      expect(invalid.body.error).toMatchObject({
        code: 'parameter_invalid',
        param: 'include_total',
      });
    });

    it('up to 1,000 matches the count stays exact without asking', async () => {
      const [{ count }]: Array<{ count: string }> = await api.dataSource.query(
        `SELECT count(*) FROM checkout_sessions WHERE merchant_id = $1 AND status = 'Paid'`,
        [walker.id],
      );
      const response = await api.get(`${SESSIONS}?status=Paid&page_size=10`, walker).expect(200);
      expect(response.headers['x-total-count']).toBe(count);
      expect(Number(count)).toBeGreaterThan(300);
      expect(linkTo(response.headers.link, 'last')).toBe(
        `${SESSIONS}?status=Paid&page=${Math.ceil(Number(count) / 10)}&page_size=10`,
      );
    });

    it('starting_after walks the whole list newest first, ties broken by id, without gaps', async () => {
      const first = await api.get(`${SESSIONS}?page_size=100`, walker).expect(200);
      const seen = idsOf(first.body);
      let next: string | undefined = `${SESSIONS}?page_size=100&starting_after=${seen[99]}`;
      let pages = 1;
      while (next) {
        const response = await api.get(next, walker).expect(200);
        seen.push(...idsOf(response.body));
        expect(linkTo(response.headers.link, 'prev')).toBeUndefined();
        expect(linkTo(response.headers.link, 'last')).toBeUndefined();
        next = linkTo(response.headers.link, 'next');
        if (next) expect(next).toMatch(/[?&]starting_after=cs_walk_\d+$/);
        pages += 1;
      }
      expect(pages).toBe(13);
      expect(seen).toEqual(walkerIds);
    });

    it('starting_after keeps the filters and combines with them', async () => {
      const paid = await api.get(`${SESSIONS}?status=Paid&page_size=100`, walker).expect(200);
      const after = idsOf(paid.body)[49];
      const response = await api
        .get(`${SESSIONS}?status=Paid&page_size=20&starting_after=${after}`, walker)
        .expect(200);
      expect(idsOf(response.body)).toEqual(idsOf(paid.body).slice(50, 70));
      expect(linkTo(response.headers.link, 'next')).toBe(
        `${SESSIONS}?status=Paid&page_size=20&starting_after=${idsOf(paid.body)[69]}`,
      );
    });

    it('a cursor that is not one of your records, or with a page number, is a 400', async () => {
      for (const cursor of ['cs_nothing', 'cs_big_10']) {
        const { body } = await api.get(`${SESSIONS}?starting_after=${cursor}`, walker).expect(400);
        expect(body.error).toMatchObject({ code: 'parameter_invalid', param: 'starting_after' });
      }
      const { body } = await api
        .get(`${SESSIONS}?page=2&starting_after=${walkerIds[0]}`, walker)
        .expect(400);
      expect(body.error).toMatchObject({ code: 'parameter_invalid', param: 'page' });
    });

    it('pages by number reach 10,000 rows; next then continues by cursor', async () => {
      const expected: Array<{ id: string }> = await api.dataSource.query(
        `SELECT id FROM checkout_sessions WHERE merchant_id = $1
          ORDER BY created_at DESC, id DESC OFFSET 9900 LIMIT 101`,
        [big.id],
      );
      const deepest = await api.get(`${SESSIONS}?page=100&page_size=100`, big).expect(200);
      expect(idsOf(deepest.body)).toEqual(idsOf(expected).slice(0, 100));
      const next = linkTo(deepest.headers.link, 'next');
      expect(next).toBe(`${SESSIONS}?page_size=100&starting_after=${expected[99].id}`);
      const beyond = await api.get(next!, big).expect(200);
      expect(beyond.body[0].id).toBe(expected[100].id);
      expect(linkTo(deepest.headers.link, 'prev')).toBe(`${SESSIONS}?page=99&page_size=100`);

      const { body } = await api.get(`${SESSIONS}?page=101&page_size=100`, big).expect(400);
      expect(body.error).toMatchObject({ code: 'parameter_invalid', param: 'page' });
      await api.get(`${SESSIONS}?page=500`, big).expect(200);
      await api.get(`${SESSIONS}?page=501`, big).expect(400);
    });

    it('payouts, events and sub-merchants page by cursor too (sub-merchants by code)', async () => {
      for (const path of ['/v1/payouts', '/v1/events']) {
        const pages = await api.get(`${path}?page_size=10`, big).expect(200);
        const ids = idsOf(pages.body);
        const after = await api
          .get(`${path}?page_size=5&starting_after=${ids[4]}`, big)
          .expect(200);
        expect(idsOf(after.body)).toEqual(ids.slice(5, 10));
        expect(pages.headers['x-total-count-at-least']).toBe('1001');
      }
      const platform = await api.get('/v1/sub-merchants?page_size=10', psp).expect(200);
      const codes = platform.body.map((item: { code: string }) => item.code);
      expect(codes[0]).toBe('sm_plan_-1');
      const after = await api
        .get(`/v1/sub-merchants?page_size=5&starting_after=${codes[4]}`, psp)
        .expect(200);
      expect(after.body.map((item: { code: string }) => item.code)).toEqual(codes.slice(5, 10));
      expect(linkTo(after.headers.link, 'next')).toBe(
        `/v1/sub-merchants?page_size=5&starting_after=${codes[9]}`,
      );
    });
  });
});
