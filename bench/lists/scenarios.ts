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
  const sessions = (filter: object, page: Partial<PageRequest> = {}) => ({
    spec: sessionListSpec({ ...own, ...filter }),
    page: { ...first, ...page },
  });
  const payouts = (filter: object) => ({
    spec: payoutListSpec({ ...own, ...filter }),
    page: first,
  });
  const events = (filter: object) => ({ spec: eventListSpec({ ...own, ...filter }), page: first });
  const window = (from: number, to: number) =>
    `created_after=${new Date(from).toISOString()}&created_before=${new Date(to).toISOString()}`;
  return [
    { name: 'GET session by id (reference)', path: `${SESSIONS}/${middle.id}` },
    { name: 'sessions: first page', path: SESSIONS, direct: sessions({}) },
    {
      name: 'sessions: page_size=100',
      path: `${SESSIONS}?page_size=100`,
      direct: sessions({}, { pageSize: 100 }),
    },
    {
      name: 'sessions: status=Paid',
      path: `${SESSIONS}?status=Paid`,
      direct: sessions({ statuses: ['Paid'] }),
    },
    {
      name: 'sessions: status=Pending (5 %)',
      path: `${SESSIONS}?status=Pending`,
      direct: sessions({ statuses: ['Pending'] }),
    },
    {
      name: 'sessions: status=Paid&status=Underpaid',
      path: `${SESSIONS}?status=Paid&status=Underpaid`,
      direct: sessions({ statuses: ['Paid', 'Underpaid'] }),
    },
    {
      name: 'sessions: network=TRON',
      path: `${SESSIONS}?network=TRON`,
      direct: sessions({ network: 'TRON' }),
    },
    {
      name: 'sessions: network=ETHEREUM',
      path: `${SESSIONS}?network=ETHEREUM`,
      direct: sessions({ network: 'ETHEREUM' }),
    },
    {
      name: 'sessions: a 1-hour window',
      path: `${SESSIONS}?${window(at - hour, at)}`,
      direct: sessions({ createdAfter: new Date(at - hour), createdBefore: new Date(at) }),
    },
    {
      name: 'sessions: created_before (mid-table)',
      path: `${SESSIONS}?created_before=${new Date(at).toISOString()}`,
      direct: sessions({ createdBefore: new Date(at) }),
    },
    {
      name: 'sessions: status=Paid in a window',
      path: `${SESSIONS}?status=Paid&${window(at - hour, at)}`,
      direct: sessions({
        statuses: ['Paid'],
        createdAfter: new Date(at - hour),
        createdBefore: new Date(at),
      }),
    },
    {
      name: 'sessions: search session id',
      path: `${SESSIONS}?search_text=${middle.id}`,
      direct: sessions({ searchText: middle.id }),
    },
    {
      name: 'sessions: search pay address',
      path: `${SESSIONS}?search_text=${middle.pay_address.toLowerCase()}`,
      direct: sessions({ searchText: middle.pay_address.toLowerCase() }),
    },
    {
      name: 'sessions: search tx hash',
      path: `${SESSIONS}?search_text=${middle.tx_hash.toUpperCase().replace('0X', '0x')}`,
      direct: sessions({ searchText: middle.tx_hash.toUpperCase().replace('0X', '0x') }),
    },
    {
      name: 'sessions: page=500 (offset 9,980)',
      path: `${SESSIONS}?page=500`,
      direct: sessions({}, { page: 500, offset: 9980 }),
    },
    {
      name: 'sessions: starting_after (90 % deep)',
      path: `${SESSIONS}?starting_after=${deep.id}`,
      direct: sessions({}, { startingAfter: deep.id }),
    },
    {
      name: 'sessions: include_total=true (exact count)',
      path: `${SESSIONS}?include_total=true`,
      direct: sessions({}, { includeTotal: true }),
    },
    { name: 'payouts: first page', path: PAYOUTS, direct: payouts({}) },
    {
      name: 'payouts: status=Failed',
      path: `${PAYOUTS}?status=Failed`,
      direct: payouts({ statuses: ['Failed'] }),
    },
    {
      name: 'payouts: network=TRON',
      path: `${PAYOUTS}?network=TRON`,
      direct: payouts({ network: 'TRON' }),
    },
    {
      name: 'payouts: search payout id',
      path: `${PAYOUTS}?search_text=${payout.id}`,
      direct: payouts({ searchText: payout.id }),
    },
    {
      name: 'payouts: search tx hash',
      path: `${PAYOUTS}?search_text=${payout.tx_hash.toUpperCase().replace('0X', '0x')}`,
      direct: payouts({ searchText: payout.tx_hash.toUpperCase().replace('0X', '0x') }),
    },
    {
      name: 'payouts: search destination',
      path: `${PAYOUTS}?search_text=${payout.to_address.toLowerCase()}`,
      direct: payouts({ searchText: payout.to_address.toLowerCase() }),
    },
    { name: 'events: first page', path: '/v1/events', direct: events({}) },
    {
      name: 'events: type=checkout.session.paid',
      path: '/v1/events?type=checkout.session.paid',
      direct: events({ types: ['checkout.session.paid'] }),
    },
    {
      name: 'events: object_id',
      path: `/v1/events?object_id=${event.object_id}`,
      direct: events({ objectId: event.object_id }),
    },
    { name: 'unmatched transfers: first page', path: '/v1/unmatched-transfers' },
    { name: 'unmatched transfers: network=BSC', path: '/v1/unmatched-transfers?network=BSC' },
    { name: 'webhook endpoints: first page', path: '/v1/webhook-endpoints' },
  ];
}
