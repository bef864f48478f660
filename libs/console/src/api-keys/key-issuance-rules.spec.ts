import { API_SCOPES, CONSOLE_ROLES, ROLE_PERMISSIONS } from '@app/auth';
import { ApiException } from '@app/common';
import { grantNeedsFreshCode } from '../team/team-rules';
import { assertRoleMayIssue } from './key-issuance-rules';

const refusal = (run: () => void) => {
  try {
    run();
    return null;
  } catch (error) {
    return { code: (error as ApiException).code, message: (error as ApiException).message };
  }
};

describe('assertRoleMayIssue', () => {
  it('lets only the roles holding every API scope issue or roll a secret key', () => {
    for (const role of CONSOLE_ROLES) {
      const holdsAll = API_SCOPES.every((scope) => ROLE_PERMISSIONS[role].has(scope));
      expect(refusal(() => assertRoleMayIssue(role, null, 'roll')) === null).toBe(holdsAll);
    }
    expect(refusal(() => assertRoleMayIssue('owner', null, 'create'))).toBeNull();
    expect(refusal(() => assertRoleMayIssue('admin', null, 'create'))).toBeNull();
  });

  it('names the scope asked for that the role lacks, and the read a write implies', () => {
    expect(refusal(() => assertRoleMayIssue('developer', ['payouts:write'], 'create'))).toEqual({
      code: 'permission_denied',
      message:
        'Your role (developer) does not allow payouts:write, so it cannot create a key holding it.',
    });
    expect(refusal(() => assertRoleMayIssue('developer', null, 'create'))?.message).toMatch(
      /^Your role \(developer\) does not allow refunds:read, which a secret key holds/,
    );
    // sub_merchants:write implies sub_merchants:read, which a developer has; the write it lacks.
    expect(
      refusal(() => assertRoleMayIssue('developer', ['sub_merchants:write'], 'create'))?.message,
    ).toContain('sub_merchants:write');
    expect(
      refusal(() =>
        assertRoleMayIssue('developer', ['checkout_sessions:write', 'events:read'], 'roll'),
      ),
    ).toBeNull();
  });
});

describe('grantNeedsFreshCode', () => {
  it('asks to grant a role managing keys or the team to someone holding less, never to lower', () => {
    expect(grantNeedsFreshCode(null, 'owner')).toBe(true);
    expect(grantNeedsFreshCode(null, 'admin')).toBe(true);
    expect(grantNeedsFreshCode(null, 'developer')).toBe(true);
    expect(grantNeedsFreshCode(null, 'support')).toBe(false);
    expect(grantNeedsFreshCode(null, 'viewer')).toBe(false);
    expect(grantNeedsFreshCode('viewer', 'developer')).toBe(true);
    expect(grantNeedsFreshCode('admin', 'owner')).toBe(true);
    expect(grantNeedsFreshCode('owner', 'admin')).toBe(false);
    expect(grantNeedsFreshCode('admin', 'developer')).toBe(false);
    expect(grantNeedsFreshCode('developer', 'support')).toBe(false);
  });
});
