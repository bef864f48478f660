import { Client } from 'pg';
import { sleep } from './clock';

/*
 * What the database sessions of the API and the workers are doing during a phase, sampled from
 * pg_stat_activity: running, waiting for a lock (and in which statement), or idle inside a
 * transaction (the application holds it open, with its locks, while it does something else).
 * Rows locked by one transaction and wanted by the next show up here as Lock waits.
 */

export interface SessionState {
  /** "active: Lock/transactionid", "active: running", "idle in transaction", ... */
  state: string;
  /** The statement, shortened. */
  query: string;
  /** Sessions in this state, on average over the samples. */
  average: number;
}

export interface SessionSamples {
  samples: number;
  /** Sessions not idle, on average. */
  busy: number;
  top: SessionState[];
}

/** The orchestrator's connections (kit/database.ts) set this application_name: not sampled. */
export const BENCH_APPLICATION_NAME = 'bench';
const SAMPLE_MS = 100;
const TOP = 6;
const QUERY_CHARS = 90;

export class SessionSampler {
  private readonly totals = new Map<string, { state: string; query: string; sum: number }>();
  private samples = 0;
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly client: Client,
    private readonly database: string,
  ) {}

  static async start(url: string, database: string): Promise<SessionSampler> {
    const client = new Client({ connectionString: url });
    await client.connect();
    const sampler = new SessionSampler(client, database);
    sampler.running = true;
    sampler.loop = (async () => {
      while (sampler.running) {
        await sampler.sample();
        await sleep(SAMPLE_MS);
      }
    })();
    return sampler;
  }

  async stop(): Promise<SessionSamples> {
    this.running = false;
    await this.loop;
    await this.client.end();
    const samples = Math.max(this.samples, 1);
    const states = [...this.totals.values()].map((total) => ({
      state: total.state,
      query: total.query,
      average: Math.round((total.sum / samples) * 100) / 100,
    }));
    return {
      samples: this.samples,
      busy: Math.round(states.reduce((sum, state) => sum + state.average, 0) * 100) / 100,
      top: states.sort((a, b) => b.average - a.average).slice(0, TOP),
    };
  }

  private async sample(): Promise<void> {
    const { rows } = await this.client.query<{ state: string; query: string; n: number }>(
      `SELECT CASE WHEN state = 'active'
                   THEN 'active: ' || COALESCE(wait_event_type || '/' || wait_event, 'running')
                   ELSE state END AS state,
              left(regexp_replace(query, '\\s+', ' ', 'g'), $2) AS query, count(*)::int AS n
         FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'
          AND application_name <> $3
        GROUP BY 1, 2`,
      [this.database, QUERY_CHARS, BENCH_APPLICATION_NAME],
    );
    this.samples++;
    for (const row of rows) {
      const key = `${row.state}\n${row.query}`;
      const total = this.totals.get(key) ?? { state: row.state, query: row.query, sum: 0 };
      total.sum += row.n;
      this.totals.set(key, total);
    }
  }
}
