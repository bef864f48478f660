import { reportedSignCount } from './passkey-sign-in.service';
import { relyingPartyOf } from './relying-party';

describe('relyingPartyOf', () => {
  it("takes PUBLIC_URL's host as RP ID and its whole origin as the one origin accepted", () => {
    expect(relyingPartyOf({ publicUrl: 'https://pay.example.com' })).toEqual({
      id: 'pay.example.com',
      name: 'Merchant console',
      origin: 'https://pay.example.com',
    });
    expect(relyingPartyOf({ publicUrl: 'http://localhost:3000' })).toEqual({
      id: 'localhost',
      name: 'Merchant console',
      origin: 'http://localhost:3000',
    });
  });
});

describe('reportedSignCount', () => {
  const assertion = (authenticatorData: Buffer) => ({
    id: 'x',
    rawId: 'x',
    type: 'public-key' as const,
    response: {
      clientDataJSON: '',
      authenticatorData: authenticatorData.toString('base64url'),
      signature: '',
    },
    clientExtensionResults: {},
  });

  it('reads the big-endian counter after the RP ID hash and the flags', () => {
    const data = Buffer.alloc(37);
    data.writeUInt32BE(0x01020304, 33);
    expect(reportedSignCount(assertion(data))).toBe(0x01020304);
  });

  it('is null for authenticator data too short to hold one', () => {
    expect(reportedSignCount(assertion(Buffer.alloc(36)))).toBeNull();
  });
});
