import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionSettlementService } from '@app/checkout';
import { listPageQuery, newId } from '@app/common';
import { balanceTransactionListSpec } from '@app/balances/transactions/balance-transactions.repository';
import { LedgerBalanceChanges1766570000000 } from '@app/database/migrations/1766570000000-ledger-balance-changes';
import { PayoutReviews } from '@app/payouts';
import { postManyPayments } from '../support/balance-transactions';
import { creditBalance } from '../support/ledger-credit';
import {
  cleanUpPayouts,
  postPayout,
  randomTronAddress,
  subMerchantId,
} from '../support/payouts-api';
import { postSessionRefund } from '../support/refunds-api';
import { TestApi, TestMerchant } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const TXN_ID = expect.stringMatching(/^txn_[0-9a-f]{32}$/);
const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);

interface Txn {
  id: string;
  type: string;
  amount: string;
  fee: string;
  net: string;
  currency: string;
  network: string;
  balance_after: string;
  source_id: string;
  sub_merchant_code: string | null;
  created_at: string;
}

/**
 * How a response body ended: 'end' when read whole, 'aborted' when its connection was cut (the
 * 'close' without an 'end' covers a cut that raised no 'aborted' or 'error').
 */
const bodyOutcome = (response: http.IncomingMessage) =>
  new Promise<'end' | 'aborted'>((resolve) => {
    response.once('end', () => resolve('end'));
    response.once('aborted', () => resolve('aborted'));
    response.once('error', () => resolve('aborted'));
    response.once('close', () => resolve(response.complete ? 'end' : 'aborted'));
  });

/** The first chunk of a body; an error when it ends or is cut before any. */
const firstChunk = (response: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    response.once('data', resolve);
    response.once('close', () => reject(new Error('The body ended before its first chunk')));
  });

/** A CSV body as records of fields (no field of these tests is quoted). */
const csvRows = (text: string) =>
  text
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(','));

/*
 * GET /v1/balance-transactions on the real app and database: every type the real flows produce
 * (settlement of a session with a fee, its reversal, a payout held and released, a refund held
 * and canceled), exact amounts and running balances, filters, pagination, tenancy, CSV equal to
 * the JSON, and CSV streamed from a server-side cursor (bytes arrive while it is still open).
 */
describe('Balance transactions', () => {
  let api: TestApi;
  let psp: TestMerchant;
  let other: TestMerchant;
  let sessionId: string;
  let payoutId: string;
  let refundId: string;

  const list = async (owner: TestMerchant, query = '') =>
    api.get(`/v1/balance-transactions${query}`, owner).expect(200);

  async function confirmedTransfer(session: { id: string; pay_address: string }, amount: string) {
    const id = newId('ctx');
    await api.dataSource.query(
      `INSERT INTO session_transactions
         (id, session_id, network, tx_hash, log_index, amount, status, block_number, block_hash,
          currency, token_contract, from_address, to_address, amount_base_units, confirmed_at)
       VALUES ($1, $2, 'TRON', $3, 0, $4, 'Confirmed', 1, '0xblock', 'USDT', 'T-token',
               'T-sender', $5, $6, now())`,
      [
        id,
        session.id,
        '0x' + randomBytes(32).toString('hex'),
        amount,
        session.pay_address,
        String(Math.round(Number(amount) * 1e6)),
      ],
    );
    return id;
  }

  /*
   * The refund below is refused (409 invalid_state) while the reverted transfer's block is inside
   * the window the watcher re-scans from its TRON cursor (refund-sources.repository.ts). A suite
   * before this one in the worker's database may have left that cursor near block 1, where these
   * transfers are: the cursor is put far past them for this suite, then put back as it was.
   */
  let tronCursorFound: string | null = null;
  async function moveTronCursorPastTheseBlocks(): Promise<void> {
    const [found]: Array<{ block: string }> = await api.dataSource.query(
      `SELECT last_scanned_block::text AS block FROM chain_cursors WHERE network = 'TRON'`,
    );
    tronCursorFound = found?.block ?? null;
    await api.dataSource.query(
      `INSERT INTO chain_cursors (network, last_scanned_block) VALUES ('TRON', 1000000)
       ON CONFLICT (network) DO UPDATE SET last_scanned_block = EXCLUDED.last_scanned_block`,
    );
  }
  async function restoreTronCursor(): Promise<void> {
    await (tronCursorFound === null
      ? api.dataSource.query(`DELETE FROM chain_cursors WHERE network = 'TRON'`)
      : api.dataSource.query(
          `UPDATE chain_cursors SET last_scanned_block = $1 WHERE network = 'TRON'`,
          [tronCursorFound],
        ));
  }

  /** The app's HTTP handler on a UNIX socket of its own (closed and removed after the suite). */
  let closeUnixSocket: (() => Promise<void>) | undefined;
  async function listenOnUnixSocket(): Promise<string> {
    const folder = mkdtempSync(join(tmpdir(), 'statement-'));
    const socketPath = join(folder, 'api.sock');
    const server = http.createServer(api.app.getHttpAdapter().getInstance());
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    closeUnixSocket = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    };
    return socketPath;
  }

  const settle = (id: string) =>
    api.dataSource.transaction((manager) =>
      api.app.get(SessionSettlementService).settle(manager, id),
    );

  beforeAll(async () => {
    api = await TestApi.start();
    await moveTronCursorPastTheseBlocks();
    psp = await api.createMerchant({ name: 'Statement PSP', kind: 'psp' });
    other = await api.createMerchant({ name: 'Other Shop' });
    await api.post('/v1/sub-merchants', psp, { code: 'stmt-shop', name: 'Shop' }).expect(201);

    // A real payment: a session settled with a 1.5% fee, reorged away, then paid again.
    const { body: session } = await api
      .post('/v1/checkout/sessions', psp, {
        pricing_amount: '100',
        pricing_currency: 'USD',
        currency: 'USDT',
        network: 'TRON',
      })
      .expect(201);
    sessionId = session.id;
    await api.dataSource.query(
      `UPDATE checkout_sessions SET fee_percent = 1.5, fee_fixed = 0 WHERE id = $1`,
      [sessionId],
    );
    const first = await confirmedTransfer(session, '100');
    await settle(sessionId);
    await api.dataSource.query(
      `UPDATE session_transactions SET status = 'Reverted' WHERE id = $1`,
      [first],
    );
    await settle(sessionId);
    await confirmedTransfer(session, '100');
    await settle(sessionId);
    // A payout held, then rejected (released); a refund held, then canceled.
    const { body: payout } = await postPayout(api, psp, {
      amount: '20',
      currency: 'USDT',
      network: 'TRON',
      to_address: randomTronAddress(),
    }).expect(201);
    payoutId = payout.id;
    await api.app.get(PayoutReviews).reject(payoutId, 'test-suite', 'statement test');
    const { body: refund } = await postSessionRefund(api, psp, sessionId, {
      amount: '10',
    }).expect(201);
    refundId = refund.id;
    await api.post(`/v1/refunds/${refundId}/cancel`, psp, {}).expect(200);
    // A sub-merchant's balance and another merchant's.
    await creditBalance(api.dataSource, {
      merchantId: psp.id,
      subMerchantId: await subMerchantId(api, psp, 'stmt-shop'),
      network: 'TRON',
      currency: 'USDT',
      amount: '7',
    });
    await creditBalance(api.dataSource, {
      merchantId: other.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '5',
    });
  });

  afterAll(async () => {
    await closeUnixSocket?.();
    await restoreTronCursor();
    await cleanUpPayouts(api, [psp, other]);
    await api.close();
  });

  it('lists every movement of the balance, newest first, with exact amounts and running balances', async () => {
    const { body, headers } = await list(psp);
    const token = { currency: 'USDT', network: 'TRON', sub_merchant_code: null };
    const row = (
      type: string,
      amount: string,
      fee: string,
      net: string,
      after: string,
      source: string,
    ) => ({
      id: TXN_ID,
      type,
      amount,
      fee,
      net,
      ...token,
      balance_after: after,
      source_id: source,
      created_at: TIMESTAMP,
    });
    expect(body).toEqual([
      row('refund_release', '10', '0', '10', '98.5', refundId),
      row('refund', '-10', '0', '-10', '88.5', refundId),
      row('payout_release', '20', '0', '20', '98.5', payoutId),
      row('payout', '-20', '0', '-20', '78.5', payoutId),
      row('payment', '100', '1.5', '98.5', '98.5', sessionId),
      row('payment_reversal', '-100', '-1.5', '-98.5', '0', sessionId),
      row('payment', '100', '1.5', '98.5', '98.5', sessionId),
    ]);
    expect(headers['x-total-count']).toBe('7');
    // The balances endpoint agrees with the newest row.
    const { body: balances } = await api
      .get('/v1/balances?network=TRON&currency=USDT', psp)
      .expect(200);
    expect(balances[0].available).toBe(body[0].balance_after);
  });

  it('keeps, for every merchant balance account, the sum of its changes and the newest balance_after equal to the balance', async () => {
    // Every account of this database, whichever suite posted to it.
    const mismatches = await api.dataSource.query(
      `SELECT b.account, -b.balance AS balance, sums.total, newest.balance_after
         FROM ledger_balances b
         LEFT JOIN LATERAL (SELECT sum(amount) AS total FROM ledger_balance_changes c
                             WHERE c.account = b.account) sums ON true
         LEFT JOIN LATERAL (SELECT balance_after FROM ledger_balance_changes c
                             WHERE c.account = b.account ORDER BY id DESC LIMIT 1) newest ON true
        WHERE b.kind = 'merchant'
          AND (COALESCE(sums.total, 0) <> -b.balance
               OR COALESCE(newest.balance_after, 0) <> -b.balance)`,
    );
    expect(mismatches).toEqual([]);
    const [{ accounts }] = await api.dataSource.query(
      `SELECT count(*)::int AS accounts FROM ledger_balances WHERE kind = 'merchant'`,
    );
    expect(accounts).toBeGreaterThanOrEqual(3);
  });

  it('filters by type, currency, network, date and sub-merchant', async () => {
    const types = (rows: Txn[]) => rows.map((row) => row.type);
    expect(types((await list(psp, '?type=payout&type=refund_release')).body)).toEqual([
      'refund_release',
      'payout',
    ]);
    expect(types((await list(psp, '?type=adjustment')).body)).toEqual([]);
    expect((await list(psp, '?currency=USDC')).body).toEqual([]);
    expect((await list(psp, '?network=ETHEREUM')).body).toEqual([]);
    expect((await list(psp, '?network=TRON&currency=USDT')).body).toHaveLength(7);
    const all: Txn[] = (await list(psp)).body;
    // A millisecond after the oldest row's (the API shows milliseconds, the ledger microseconds).
    const bound = new Date(new Date(all[6].created_at).getTime() + 1);
    const { body: windowed } = await list(psp, `?created_after=${bound.toISOString()}`);
    expect(windowed).toEqual(all.filter((row) => new Date(row.created_at) >= bound));
    expect(windowed).not.toContainEqual(all[6]);
    expect((await list(psp, '?created_before=2020-01-01T00:00:00Z')).body).toEqual([]);

    const { body: shop } = await list(psp, '?sub_merchant_code=stmt-shop');
    expect(shop).toEqual([
      expect.objectContaining({
        type: 'payment',
        amount: '7',
        net: '7',
        balance_after: '7',
        sub_merchant_code: 'stmt-shop',
      }),
    ]);
    expect((await list(psp, '?include_sub_merchants=true')).body).toHaveLength(8);
    await api
      .get('/v1/balance-transactions?type=bogus', psp)
      .expect(400)
      .expect(({ body }) => expect(body.error.param).toBe('type'));
  });

  it('pages like every list: Link, X-Total-Count, starting_after', async () => {
    const all: Txn[] = (await list(psp)).body;
    const first = await list(psp, '?page_size=3');
    expect(first.body).toEqual(all.slice(0, 3));
    expect(first.headers['x-total-count']).toBe('7');
    expect(first.headers.link).toContain('rel="next"');
    expect(first.headers.link).toContain('page=2');
    const second = await list(psp, '?page_size=3&page=2');
    expect(second.body).toEqual(all.slice(3, 6));
    const after = await list(psp, `?page_size=3&starting_after=${all[5].id}`);
    expect(after.body).toEqual(all.slice(6));
    await api
      .get(`/v1/balance-transactions?starting_after=${(await list(other)).body[0].id}`, psp)
      .expect(400)
      .expect(({ body }) => expect(body.error.param).toBe('starting_after'));
  });

  it('shows one transaction to its merchant only', async () => {
    const [newest]: Txn[] = (await list(psp)).body;
    await api
      .get(`/v1/balance-transactions/${newest.id}`, psp)
      .expect(200)
      .expect(({ body }) => expect(body).toEqual(newest));
    await api.get(`/v1/balance-transactions/${newest.id}`, other).expect(404);
    const { body: theirs } = await list(other);
    expect(theirs).toEqual([expect.objectContaining({ amount: '5', balance_after: '5' })]);
  });

  it('answers the same rows as CSV with Accept: text/csv', async () => {
    const { body: json } = await list(psp, '?include_sub_merchants=true');
    const response = await api
      .get('/v1/balance-transactions?include_sub_merchants=true&page_size=1', psp)
      .set('Accept', 'text/csv')
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      })
      .expect(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(
      'attachment; filename="balance-transactions.csv"',
    );
    const [header, ...records] = csvRows(response.body as string);
    expect(header).toEqual(Object.keys(json[0]));
    // page_size does not apply: every match, as the JSON has them (null as an empty field).
    expect(records).toEqual(
      (json as Txn[]).map((row) => header.map((key) => row[key as keyof Txn] ?? '')),
    );
    await api
      .get('/v1/balance-transactions?sub_merchant_code=nope', psp)
      .set('Accept', 'text/csv')
      .expect(400);
  });

  it('streams a long CSV from a server-side cursor: bytes arrive while it is open, and a client gone closes it', async () => {
    const big = await api.createMerchant({ name: 'Big Statement' });
    // Far more than the socket's buffers and the one batch read ahead hold (about 2.6 MB of CSV
    // against some 0.5 MB): while the client does not read, the server cannot reach the cursor's
    // end. Over a UNIX socket, whose buffers stay at net.core.wmem_default (208 KiB here): TCP on
    // loopback grows them to megabytes (tcp_rmem), which took 150,000 rows, a seed that ran for
    // minutes on a loaded machine and held this suite's database past the test's end.
    const count = 20_000;
    // The seed shares no balance row with the other suites: it is posted while another
    // transaction holds the network's deposits account, as any TRON deposit does for a moment.
    const holder = api.dataSource.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      const held = await holder.query(
        `SELECT account FROM ledger_balances WHERE account = 'deposits:TRON:USDT' FOR UPDATE`,
      );
      expect(held).toHaveLength(1);
      await postManyPayments(api.dataSource, {
        merchantId: big.id,
        network: 'TRON',
        currency: 'USDT',
        amount: '0.01',
        count,
      });
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    const socketPath = await listenOnUnixSocket();
    const openCursors = async (): Promise<number> => {
      const [row] = await api.dataSource.query(
        `SELECT count(*)::int AS open FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'FETCH % FROM balance_statement'`,
      );
      return row.open;
    };
    const get = () =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get(
            {
              socketPath,
              path: '/v1/balance-transactions',
              headers: { Authorization: `Bearer ${big.apiKey}`, Accept: 'text/csv' },
            },
            resolve,
          )
          .on('error', reject);
      });

    // Read the first chunk, then stop reading: the server has sent bytes and its cursor is still
    // open (the rest not read from the database yet), not a body built whole and sent after.
    const response = await get();
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const first = await firstChunk(response);
    response.pause();
    expect(first.toString('utf8')).toMatch(/^id,type,amount,fee,net,/);
    await waitFor(async () => (await openCursors()) === 1, 30_000);
    // Read the rest: every row, the running balance down to the first payment.
    let text = first.toString('utf8');
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.resume();
    // A body cut short ends in 'aborted' or 'error' and never in 'end': fail then, never wait.
    expect(await bodyOutcome(response)).toBe('end');
    const [, ...records] = csvRows(text);
    expect(records).toHaveLength(count);
    expect(records[0][7]).toBe(String(count / 100));
    expect(records[count - 1][7]).toBe('0.01');
    await waitFor(async () => (await openCursors()) === 0, 30_000);

    // A client that goes away mid-stream: the cursor is closed and its connection freed.
    const abandoned = await get();
    await firstChunk(abandoned);
    abandoned.pause();
    await waitFor(async () => (await openCursors()) === 1, 30_000);
    abandoned.destroy();
    await waitFor(async () => (await openCursors()) === 0, 30_000);

    // The database gone mid-stream: the connection is cut, never a short body that looks whole.
    const cut = await get();
    await firstChunk(cut);
    cut.pause();
    await waitFor(async () => (await openCursors()) === 1, 30_000);
    // Whatever its state (idle between two reads or in one): its transaction ends with an error.
    const killed = await api.dataSource.query(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'FETCH % FROM balance_statement'`,
    );
    expect(killed).toEqual([{ killed: true }]);
    cut.resume();
    expect(await bodyOutcome(cut)).toBe('aborted');
    // The API still answers.
    await list(big, '?page_size=1');
  });

  it('backfills the running balances of the history before its migration, in entry order', async () => {
    const migration = new LedgerBalanceChanges1766570000000();
    const before: Txn[] = (await list(psp, '?include_sub_merchants=true')).body;
    const runner = api.dataSource.createQueryRunner();
    // As the migrations CLI runs them: without the API's statement timeout, which the backfill of
    // every suite's history in this database can outlast on a loaded machine.
    const migrate = async (step: 'up' | 'down') => {
      await runner.startTransaction();
      await runner.query('SET LOCAL statement_timeout = 0');
      await migration[step](runner);
      await runner.commitTransaction();
    };
    let restored = false;
    try {
      await runner.connect();
      await migrate('down');
      // Posted while the table is gone: the old trigger keeps balances only.
      await creditBalance(api.dataSource, {
        merchantId: psp.id,
        network: 'TRON',
        currency: 'USDT',
        amount: '0.5',
      });
      await migrate('up');
      restored = true;
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      // The suites after this one in this worker's database need the table back, whatever failed.
      if (!restored) await migrate('up').catch(() => undefined);
      await runner.release();
    }
    const after: Txn[] = (await list(psp, '?include_sub_merchants=true')).body;
    const withoutIds = (rows: Txn[]) => rows.map(({ id: _id, created_at: _at, ...rest }) => rest);
    expect(withoutIds(after.slice(1))).toEqual(withoutIds(before));
    expect(after[0]).toMatchObject({ type: 'payment', amount: '0.5', balance_after: '99' });
    const mismatches = await api.dataSource.query(
      `SELECT b.account FROM ledger_balances b
        WHERE b.kind = 'merchant' AND -b.balance <> COALESCE(
          (SELECT balance_after FROM ledger_balance_changes c
            WHERE c.account = b.account ORDER BY id DESC LIMIT 1), 0)`,
    );
    expect(mismatches).toEqual([]);
  });

  it('reads the first page and its capped count from the index, never the whole statement', async () => {
    const busy = await api.createMerchant({ name: 'Busy Statement' });
    await postManyPayments(api.dataSource, {
      merchantId: busy.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '1',
      count: 20_000,
    });
    await api.dataSource.query('ANALYZE ledger_balance_changes');
    type PlanNode = {
      'Node Type': string;
      'Relation Name'?: string;
      'Actual Rows': number;
      'Actual Loops': number;
      Plans?: PlanNode[];
    };
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    for (const scope of [{ kind: 'own' }, { kind: 'all' }] as const) {
      const { sql, params } = listPageQuery(
        balanceTransactionListSpec({ merchantId: busy.id, scope, network: 'TRON' }),
        21,
        0,
        undefined,
        1000,
      );
      const [
        {
          'QUERY PLAN': [{ Plan: root }],
        },
      ] = await api.dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const scans = nodes(root).filter(
        (node) => node['Relation Name'] === 'ledger_balance_changes',
      );
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
      // The page (21 rows) and the count capped at 1,001: never the 20,000.
      for (const scan of scans)
        expect(scan['Actual Rows'] * scan['Actual Loops']).toBeLessThanOrEqual(1001);
    }
  });
});
