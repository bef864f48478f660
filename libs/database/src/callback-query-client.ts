import { Client, QueryResult } from 'pg';

type QueryCallback = (error: Error | null, result: QueryResult) => void;

/**
 * pg's Client, with a promise-mode `query` (the way TypeORM calls it) run in pg's callback mode.
 *
 * In promise mode pg builds the query first and gives it its callback afterwards; measured on
 * Node 24 with pg 8.23, every such query then left its whole result (about 50 kB for one checkout
 * session) alive until the next full collection: the API's old generation grew by 2 MB every
 * 40 requests, each young-generation pause took 3–10 ms instead of 0.2–1.5, and a full collection
 * of 150 MB (15 ms) came every 14 s. Both modes send and parse the same messages; only when the
 * callback is handed to pg changes, so errors, results and ordering are pg's own.
 * docs/decisions.md ("PostgreSQL client in callback mode") has the measurements.
 */
export class CallbackQueryClient extends Client {
  constructor(...args: ConstructorParameters<typeof Client>) {
    super(...args);
    // A connection PostgreSQL ends (a restart, pg_terminate_backend) while the client is checked
    // out and between queries is reported as an 'error' event, and pg's pool listens only to idle
    // clients: unheard, the event would end the process. The client is then not queryable: its
    // holder's next query fails (a 503) and the pool drops it on release.
    this.on('error', () => undefined);
  }

  // pg's overloads are many; this one passes every call through, changing only the promise mode.
  override query(config: unknown, values?: unknown, callback?: unknown): never {
    const passThrough = (query: unknown, ...rest: unknown[]) =>
      (super.query as (...args: unknown[]) => unknown).call(this, query, ...rest) as never;
    const custom = typeof (config as { submit?: unknown } | null)?.submit === 'function';
    // As pg decides: a callback given (in either place) is callback mode already.
    if (config == null || custom || typeof values === 'function' || callback != null) {
      return passThrough(config, values, callback);
    }
    return new Promise<QueryResult>((resolve, reject) => {
      const done: QueryCallback = (error, result) => (error ? reject(error) : resolve(result));
      passThrough(config, values, done);
    }).catch((error: Error) => {
      // As pg's promise mode does: the stack then leads back to the caller, not to the socket.
      Error.captureStackTrace(error);
      throw error;
    }) as never;
  }
}
