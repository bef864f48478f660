import { AuthenticatedMerchant, ConsoleRole, Permission, ROLE_PERMISSIONS } from '@app/auth';
import { AppConfig, loadAppConfig } from '@app/common';
import { mayReadDestinationLink, RefundDestinationLinks } from './refund-destination-links';

const linksUnder = (key: string): RefundDestinationLinks =>
  new RefundDestinationLinks({
    ...loadAppConfig({ PUBLIC_URL: 'https://pay.example.com' }),
    webhooks: { ...loadAppConfig({}).webhooks, secretsKey: Buffer.from(key, 'hex') },
  } as AppConfig);

describe('RefundDestinationLinks', () => {
  const links = linksUnder('ab'.repeat(32));
  const refund = {
    id: 're_4Fq9LmX2cTz7Rb8VnK1pWe',
    session_id: 'cs_3kTMd9Q2xLp8RvB1nY7cZa',
    status: 'requires_destination',
  };

  it('derives a 256-bit secret per refund, under the server key only', () => {
    const secret = links.secretOf(refund.id);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(links.secretOf(refund.id)).toBe(secret);
    expect(links.secretOf('re_4Fq9LmX2cTz7Rb8VnK1pWf')).not.toBe(secret);
    expect(linksUnder('cd'.repeat(32)).secretOf(refund.id)).not.toBe(secret);
  });

  it('accepts the refund’s own secret only', () => {
    const secret = links.secretOf(refund.id);
    expect(links.matches(refund.id, secret)).toBe(true);
    for (const wrong of [
      undefined,
      null,
      42,
      '',
      secret.slice(1),
      `${secret}A`,
      secret.toUpperCase(),
    ]) {
      expect(links.matches(refund.id, wrong)).toBe(false);
    }
    expect(links.matches('re_4Fq9LmX2cTz7Rb8VnK1pWf', secret)).toBe(false);
  });

  it('puts the link in the fragment of the session’s page, only while the refund waits', () => {
    expect(links.urlOf(refund)).toBe(
      `https://pay.example.com/checkout/${refund.session_id}#refund=${refund.id}&secret=${links.secretOf(refund.id)}`,
    );
    expect(links.urlOf({ ...refund, status: 'Pending' })).toBeNull();
    expect(links.urlOf({ ...refund, session_id: null })).toBeNull();
  });

  describe('who may read the link (refunds review H1)', () => {
    const caller = (
      permissions: Permission[],
      actor: AuthenticatedMerchant['actor'] = { type: 'api_key', apiKeyId: 'key_1' },
    ): AuthenticatedMerchant => ({
      merchantId: 'mer_1',
      kind: 'direct',
      name: 'Shop',
      logoUrl: null,
      livemode: false,
      apiKeyId: actor.type === 'api_key' ? actor.apiKeyId : null,
      actor,
      permissions: new Set(permissions),
    });
    const member = (role: ConsoleRole, operatorId?: string) =>
      caller([...ROLE_PERMISSIONS[role]], {
        type: 'console_user',
        userId: 'cu_1',
        sessionId: 'ab',
        role,
        ...(operatorId ? { operatorId } : {}),
      });

    it('a caller who may move refunds', () => {
      expect(mayReadDestinationLink(caller(['refunds:read', 'refunds:write']))).toBe(true);
      expect(mayReadDestinationLink(member('owner'))).toBe(true);
      expect(mayReadDestinationLink(member('admin'))).toBe(true);
    });

    it('never a reader, nor an operator viewing as the merchant whatever the role', () => {
      expect(mayReadDestinationLink(caller(['refunds:read']))).toBe(false);
      for (const role of ['developer', 'support', 'viewer'] as const) {
        expect(mayReadDestinationLink(member(role))).toBe(false);
      }
      // A view as the merchant is a viewer today; were it ever given more, still no link.
      expect(mayReadDestinationLink(member('owner', 'op_1'))).toBe(false);
    });
  });
});
