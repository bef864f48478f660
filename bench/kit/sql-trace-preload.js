// Preloaded (node --require) into the worker by `npm run bench:deposits -- --trace-sql`: counts
// and times every statement the worker sends through `pg`, and groups them by transaction, so a
// scan tick's SQL (how many statements, how much of the tick they take) can be read off. The app
// is not changed. Asked over the IPC channel (a signal would not do: Nest's shutdown hooks listen
// to SIGUSR2 too), it answers with what it has recorded so far.
'use strict';

const { Client } = require('pg');

const REQUEST = 'bench:sql-trace';
/** Statement (first 80 characters) -> { count, ms }, over the whole process. */
const statements = new Map();
/** Finished transactions: start (epoch ms), duration, statements, SQL time and the breakdown. */
const transactions = [];
/** The transaction each client is in. */
const open = new WeakMap();

const keyOf = (text) => text.replace(/\s+/g, ' ').trim().slice(0, 80);
const epochMs = (relative) => performance.timeOrigin + relative;

function add(map, key, ms) {
  const entry = map.get(key) ?? { count: 0, ms: 0 };
  entry.count += 1;
  entry.ms += ms;
  map.set(key, entry);
}

function record(client, text, startedAt) {
  const ms = performance.now() - startedAt;
  const key = keyOf(text);
  add(statements, key, ms);
  if (key === 'START TRANSACTION') {
    open.set(client, { startedAt, statements: 0, sqlMs: 0, byKey: new Map() });
  }
  const transaction = open.get(client);
  if (!transaction) return;
  transaction.statements += 1;
  transaction.sqlMs += ms;
  add(transaction.byKey, key, ms);
  if (key === 'COMMIT' || key === 'ROLLBACK') {
    open.delete(client);
    transactions.push({
      startedAt: epochMs(transaction.startedAt),
      ms: performance.now() - transaction.startedAt,
      statements: transaction.statements,
      sqlMs: transaction.sqlMs,
      byKey: Object.fromEntries(transaction.byKey),
    });
  }
}

const query = Client.prototype.query;
Client.prototype.query = function tracedQuery(config, values, callback) {
  const text = typeof config === 'string' ? config : config?.text;
  // Plain statements only, promise or callback form (the app's CallbackQueryClient hands
  // TypeORM's queries to pg with a callback); anything else (streams, cursors) passes untouched.
  if (typeof text !== 'string' || typeof config?.submit === 'function') {
    return query.apply(this, arguments);
  }
  const startedAt = performance.now();
  const done = () => record(this, text, startedAt);
  if (typeof values === 'function' || typeof callback === 'function') {
    const given = typeof values === 'function' ? values : callback;
    const traced = function (...answer) {
      done();
      return given.apply(this, answer);
    };
    return typeof values === 'function'
      ? query.call(this, config, traced)
      : query.call(this, config, values, traced);
  }
  const result = query.apply(this, arguments);
  if (result && typeof result.then === 'function') result.then(done, done);
  return result;
};

process.on('message', (message) => {
  if (message !== REQUEST || !process.send) return;
  process.send({
    type: REQUEST,
    statements: Object.fromEntries(statements),
    transactions,
  });
});
