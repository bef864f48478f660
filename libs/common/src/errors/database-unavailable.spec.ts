import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a pool timeout', new Error('timeout exceeded when trying to connect')],
    ['an administrator shutdown', withCode('terminating connection', '57P01')],
    ['a database starting up', withCode('the database system is starting up', '57P03')],
    ['a connection exception', withCode('connection failure', '08006')],
    [
      'a session closed idle in a transaction (DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS)',
      withCode('terminating connection due to idle-in-transaction timeout', '25P03'),
    ],
    [
      'a query failed on a terminated connection',
      new QueryFailedError('SELECT 1', [], withCode('terminating connection', '57P01')),
    ],
    [
      "a transaction's connection lost, whatever its error said",
      Object.assign(new Error('The database connection of this transaction was lost'), {
        name: 'DatabaseConnectionLostError',
        cause: new Error('SSL connection has been closed unexpectedly'),
      }),
    ],
    [
      'every address refused',
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')]),
    ],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('duplicate key', '23505'))],
    ['a syntax error', withCode('syntax error at or near', '42601')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    [
      'a manager used after its transaction ended',
      Object.assign(new Error('Query runner already released'), {
        name: 'QueryRunnerAlreadyReleasedError',
      }),
    ],
    ['not an error', 'ECONNREFUSED'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
