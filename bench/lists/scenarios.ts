import type { Client } from 'pg';
import type { ListSpec, PageRequest } from '../../libs/common/src';
import { sessionListSpec } from '../../libs/checkout/src/checkout-sessions.repository';
import { eventListSpec } from '../../libs/events/src/events/events.repository';
import { payoutListSpec } from '../../libs/payouts/src/payouts.repository';

/**
 * One request shape of bench:lists: a name for the table, the path it GETs and, for lists, the
 * same query as the repository builds it, to time the database's share without HTTP.
 */
export interface Scenario {
  name: string;
  path: string;
  direct?: { spec: ListSpec; page: PageRequest };
}

const SESSIONS = '/v1/checkout/sessions';
const PAYOUTS = '/v1/payouts';
const hour = 3600_000;

async function one<T>(db: Client, sql: string, params: unknown[]): Promise<T> {
  const { rows } = await db.query(sql, params);
  if (!rows[0]) throw new Error(`Nothing seeded for: ${sql}`);
  return rows[0] as T;
}

/**
 * Every filter's first page, each search key (in the other case than stored: the normalization
 * is part of what is measured), date windows, a deep page by number and one by cursor, for
 * sessions, payouts and the other lists. Search targets sit in the middle of the table.
 */
export async function scenarios(db: Client, merchantId: string): Promise<Scenario[]> {
  const middle = await one<{
    id: string;
    pay_address: string;
    tx_hash: string;
    created_at: Date;
  }>(
    db,
    `SELECT s.id, s.pay_address, t.tx_hash, s.created_at FROM checkout_sessions s
       JOIN session_transactions t ON t.session_id = s.id
      WHERE s.merchant_id = $1 AND s.network <> 'TRON'
      ORDER BY s.created_at DESC, s.id DESC OFFSET (SELECT count(*) / 20 FROM session_transactions)
      LIMIT 1`,
    [merchantId],
  );
  const deep = await one<{ id: string }>(
    db,
    `SELECT id FROM checkout_sessions WHERE merchant_id = $1
      ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) * 9 / 10 FROM checkout_sessions)
      LIMIT 1`,
    [merchantId],
  );
  const payout = await one<{ id: string; tx_hash: string; to_address: string }>(
    db,
    `SELECT id, tx_hash, to_address FROM payouts WHERE merchant_id = $1 AND status = 'Completed'
      ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) / 2 FROM payouts) LIMIT 1`,
    [merchantId],
  );
  const event = await one<{ object_id: string }>(
    db,
    `SELECT object_id FROM events WHERE merchant_id = $1 ORDER BY created_at LIMIT 1`,
    [merchantId],
  );
  const at = middle.created_at.getTime();
  const own = { merchantId, scope: { kind: 'own' as const } };
  const first: PageRequest = { page: 1, pageSize: 20, offset: 0, includeTotal: false };
  /** `${resource}: ${label}`, GET path?query, and the same list as its repository builds it. */
  const list =
    <F>(resource: string, path: string, listSpec: (filter: F) => ListSpec) =>
    (label: string, query: string, filter: Partial<F> = {}, page: Partial<PageRequest> = {}) => ({
      name: `${resource}: ${label}`,
      path: query ? `${path}?${query}` : path,
      direct: { spec: listSpec({ ...own, ...filter } as F), page: { ...first, ...page } },
    });
  const sessions = list('sessions', SESSIONS, sessionListSpec);
  const payouts = list('payouts', PAYOUTS, payoutListSpec);
  const events = list('events', '/v1/events', eventListSpec);
  const [hourAgo, midTable] = [new Date(at - hour).toISOString(), new Date(at).toISOString()];
  const window = `created_after=${hourAgo}&created_before=${midTable}`;
  const inWindow = { createdAfter: new Date(at - hour), createdBefore: new Date(at) };
  const sessionHash = middle.tx_hash.toUpperCase().replace('0X', '0x');
  const payoutHash = payout.tx_hash.toUpperCase().replace('0X', '0x');
  const [address, destination] = [middle.pay_address, payout.to_address].map((a) =>
    a.toLowerCase(),
  );
  return [
    { name: 'GET session by id (reference)', path: `${SESSIONS}/${middle.id}` },
    sessions('first page', ''),
    sessions('page_size=100', 'page_size=100', {}, { pageSize: 100 }),
    sessions('status=Paid', 'status=Paid', { statuses: ['Paid'] }),
    sessions('status=Pending (5 %)', 'status=Pending', { statuses: ['Pending'] }),
    sessions('status=Paid&status=Underpaid', 'status=Paid&status=Underpaid', {
      statuses: ['Paid', 'Underpaid'],
    }),
    sessions('network=TRON', 'network=TRON', { network: 'TRON' }),
    sessions('network=ETHEREUM', 'network=ETHEREUM', { network: 'ETHEREUM' }),
    sessions('a 1-hour window', window, inWindow),
    sessions('created_before (mid-table)', `created_before=${midTable}`, {
      createdBefore: new Date(at),
    }),
    sessions('status=Paid in a window', `status=Paid&${window}`, {
      statuses: ['Paid'],
      ...inWindow,
    }),
    sessions('search session id', `search_text=${middle.id}`, { searchText: middle.id }),
    sessions('search pay address', `search_text=${address}`, { searchText: address }),
    sessions('search tx hash', `search_text=${sessionHash}`, { searchText: sessionHash }),
    sessions('page=500 (offset 9,980)', 'page=500', {}, { page: 500, offset: 9980 }),
    sessions(
      'starting_after (90 % deep)',
      `starting_after=${deep.id}`,
      {},
      {
        startingAfter: deep.id,
      },
    ),
    sessions('include_total=true (exact count)', 'include_total=true', {}, { includeTotal: true }),
    payouts('first page', ''),
    payouts('status=Failed', 'status=Failed', { statuses: ['Failed'] }),
    payouts('network=TRON', 'network=TRON', { network: 'TRON' }),
    payouts('search payout id', `search_text=${payout.id}`, { searchText: payout.id }),
    payouts('search tx hash', `search_text=${payoutHash}`, { searchText: payoutHash }),
    payouts('search destination', `search_text=${destination}`, { searchText: destination }),
    events('first page', ''),
    events('type=checkout.session.paid', 'type=checkout.session.paid', {
      types: ['checkout.session.paid'],
    }),
    events('object_id', `object_id=${event.object_id}`, { objectId: event.object_id }),
    { name: 'unmatched transfers: first page', path: '/v1/unmatched-transfers' },
    { name: 'unmatched transfers: network=BSC', path: '/v1/unmatched-transfers?network=BSC' },
    { name: 'webhook endpoints: first page', path: '/v1/webhook-endpoints' },
  ];
}
