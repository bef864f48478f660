import { QueryFailedError } from 'typeorm';
import { isStatementCancelled } from './statement-cancelled';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isStatementCancelled', () => {
  it('is true for SQLSTATE 57014, as pg reports it and as TypeORM wraps it', () => {
    const timeout = withCode('canceling statement due to statement timeout', '57014');
    expect(isStatementCancelled(timeout)).toBe(true);
    expect(isStatementCancelled(new QueryFailedError('SELECT', [], timeout))).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('duplicate', '23505'))],
    ['an administrator shutdown', withCode('terminating connection', '57P01')],
    ['a plain bug', new TypeError('x is undefined')],
    ['not an error', '57014'],
  ])('is false for %s', (_, error) => {
    expect(isStatementCancelled(error)).toBe(false);
  });
});
