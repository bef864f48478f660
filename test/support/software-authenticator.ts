import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';

/*
 * A software WebAuthn authenticator for e2e tests: a P-256 key (ES256), "none" attestation, and
 * responses shaped as @simplewebauthn/browser hands them to the server. Nothing of the server's
 * verification is bypassed: the answers are signed as a real authenticator signs them.
 */

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const out = Buffer.alloc(3);
    out[0] = (major << 5) | 25;
    out.writeUInt16BE(length, 1);
    return out;
  }
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

type Cbor = number | string | Buffer | Map<number | string, Cbor>;

/** The little CBOR WebAuthn needs: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

export interface AuthenticatorOptions {
  rpId: string;
  origin: string;
}

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly cosePublicKey: Buffer;
  signCount = 0;

  constructor(private readonly relyingParty: AuthenticatorOptions) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cosePublicKey = cbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    );
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  private authenticatorData(flags: number, signCount: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(signCount);
    const rpIdHash = createHash('sha256').update(this.relyingParty.rpId).digest();
    return Buffer.concat([rpIdHash, Buffer.from([flags]), counter, attested ?? Buffer.alloc(0)]);
  }

  /** The answer to registration options (navigator.credentials.create). */
  register(challenge: string, overrides: { origin?: string } = {}) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([
      Buffer.alloc(16), // AAGUID: none
      length,
      this.credentialId,
      this.cosePublicKey,
    ]);
    // UP | UV | AT
    const authData = this.authenticatorData(0x45, this.signCount, attested);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(
          this.clientData(
            'webauthn.create',
            challenge,
            overrides.origin ?? this.relyingParty.origin,
          ),
        ),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /**
   * The answer to authentication options (navigator.credentials.get). The counter advances by
   * one unless `signCount` is given (a cloned authenticator reports one that went back).
   */
  assert(challenge: string, overrides: { origin?: string; signCount?: number } = {}) {
    const signCount = overrides.signCount ?? this.signCount + 1;
    if (overrides.signCount === undefined) this.signCount = signCount;
    const authData = this.authenticatorData(0x05, signCount); // UP | UV
    const clientDataJSON = this.clientData(
      'webauthn.get',
      challenge,
      overrides.origin ?? this.relyingParty.origin,
    );
    const signature = sign(
      'sha256',
      Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]),
      this.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
