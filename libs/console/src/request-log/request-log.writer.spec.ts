import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { RequestLogEntry } from './request-log-entry';
import { BATCH_SIZE, MAX_BUFFERED, RequestLogWriter } from './request-log.writer';

// The database is stood in for here only to count statements and to hold or refuse them; the
// e2e suite (test/console/console-request-log.e2e-spec.ts) writes to the real one.
const answerLater: Array<() => void> = [];

function fakeDatabase() {
  const statements: unknown[][][] = [];
  const held: Array<() => void> = [];
  let holding = true;
  let fail = false;
  const query = jest.fn((_sql: string, params: unknown[][]) => {
    statements.push(params);
    if (fail) return Promise.reject(new Error('database unavailable'));
    if (!holding) return Promise.resolve();
    return new Promise<void>((resolve) => held.push(resolve));
  });
  const answer = () => {
    holding = false;
    for (const resolve of held.splice(0)) resolve();
  };
  answerLater.push(answer);
  return {
    dataSource: { query } as unknown as DataSource,
    statements,
    /** Rows of each statement (the first array parameter is one merchant id per row). */
    batchSizes: () => statements.map((params) => params[0].length),
    /** Statements end now and from now on. */
    answer,
    failWrites: () => (fail = true),
  };
}

let sequence = 0;
function entry(): RequestLogEntry {
  sequence += 1;
  return {
    merchantId: 'mer_1',
    livemode: false,
    method: 'GET',
    path: '/v1/events',
    status: 200,
    actor: 'api_key',
    apiKeyId: 'key_1',
    consoleUserId: null,
    requestId: `req_${sequence}`,
    latencyMs: 3,
    createdAt: new Date(),
  };
}

describe('RequestLogWriter', () => {
  const writers: RequestLogWriter[] = [];
  const writerOn = (dataSource: DataSource) => {
    const writer = new RequestLogWriter(dataSource);
    writers.push(writer);
    return writer;
  };
  let loggedErrors: jest.SpyInstance;
  beforeEach(() => {
    loggedErrors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  // Stops each writer's timer once its statements have ended.
  afterEach(async () => {
    for (const answer of answerLater.splice(0)) answer();
    for (const writer of writers.splice(0)) await writer.onApplicationShutdown();
    loggedErrors.mockRestore();
  });

  it('writes a full batch at once, as one statement, without waiting for the timer', () => {
    const db = fakeDatabase();
    const writer = writerOn(db.dataSource);
    for (let i = 0; i < BATCH_SIZE - 1; i++) writer.record(entry());
    expect(db.statements).toHaveLength(0);
    writer.record(entry());
    expect(db.batchSizes()).toEqual([BATCH_SIZE]);
    expect(writer.pending).toBe(0);
    db.answer();
  });

  it('keeps at most MAX_BUFFERED entries while a write hangs, and drops the rest', () => {
    const db = fakeDatabase();
    const writer = writerOn(db.dataSource);
    // The first full batch goes to the hanging statement; no second one starts while it runs.
    for (let i = 0; i < BATCH_SIZE + MAX_BUFFERED + 10; i++) writer.record(entry());
    expect(db.statements).toHaveLength(1);
    expect(writer.pending).toBe(MAX_BUFFERED);
    // Reported (once) at the next flush.
    void writer.flush();
    expect(loggedErrors).toHaveBeenCalledWith(
      { dropped: 10, buffered: MAX_BUFFERED },
      'Request log buffer full; entries dropped',
    );
    db.answer();
  });

  it('drops a batch the database refuses, resolves, and writes later batches', async () => {
    const db = fakeDatabase();
    const writer = writerOn(db.dataSource);
    db.failWrites();
    writer.record(entry());
    await expect(writer.flush()).resolves.toBe(false);
    expect(writer.pending).toBe(0);
    expect(loggedErrors).toHaveBeenCalledWith(
      expect.objectContaining({ dropped: 1 }),
      'Request log batch not written; its entries are dropped',
    );
    writer.record(entry());
    await expect(writer.flush()).resolves.toBe(false);
    expect(db.batchSizes()).toEqual([1, 1]);
  });

  it('writes everything buffered at shutdown, in batches', async () => {
    const db = fakeDatabase();
    db.answer();
    const writer = writerOn(db.dataSource);
    for (let i = 0; i < BATCH_SIZE * 2 + 7; i++) writer.record(entry());
    await writer.onApplicationShutdown();
    expect(db.batchSizes().reduce((sum, size) => sum + size, 0)).toBe(BATCH_SIZE * 2 + 7);
    expect(Math.max(...db.batchSizes())).toBeLessThanOrEqual(BATCH_SIZE);
    expect(writer.pending).toBe(0);
  });
});
