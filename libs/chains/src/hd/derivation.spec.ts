import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { TronWeb } from 'tronweb';
import {
  bip32,
  deriveAddress,
  deriveEvmAddress,
  deriveTronAddress,
  EVM_ACCOUNT_PATH,
  keyFingerprint,
  TRON_ACCOUNT_PATH,
} from './derivation';

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

function rootOf(phrase: string): HDNodeWallet {
  return HDNodeWallet.fromSeed(Mnemonic.fromPhrase(phrase).computeSeed());
}

function accountXpub(root: HDNodeWallet, path: string): string {
  return root.derivePath(path).neuter().extendedKey;
}

describe('HD address derivation', () => {
  const hardhatRoot = rootOf(HARDHAT_MNEMONIC);
  const evmXpub = accountXpub(hardhatRoot, EVM_ACCOUNT_PATH);
  const tronXpub = accountXpub(hardhatRoot, TRON_ACCOUNT_PATH);

  it('matches the well-known Hardhat accounts for m/44/60/0/0/i', () => {
    expect(deriveEvmAddress(evmXpub, 0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(deriveEvmAddress(evmXpub, 1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it.each([0, 1, 2, 7, 19, 1000])(
    'matches the TRON address tronweb derives at m/44/195/0/0/%i',
    (index) => {
      const expected = TronWeb.fromMnemonic(HARDHAT_MNEMONIC, `${TRON_ACCOUNT_PATH}/0/${index}`);
      expect(deriveTronAddress(tronXpub, index)).toBe(expected.address);
    },
  );

  it('pins the BIP-39 "abandon … about" vectors', () => {
    const root = rootOf(ABANDON_MNEMONIC);
    // Published by Ian Coleman's BIP-39 tool and the Ledger TRON app test case.
    expect(deriveTronAddress(accountXpub(root, TRON_ACCOUNT_PATH), 0)).toBe(
      'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
    );
    expect(deriveEvmAddress(accountXpub(root, EVM_ACCOUNT_PATH), 0)).toBe(
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    );
  });

  it('derives from the xpub what the private full path derives, for any index', () => {
    const index = fc.integer({ min: 0, max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(index, (i) => {
        expect(deriveEvmAddress(evmXpub, i)).toBe(
          hardhatRoot.derivePath(`${EVM_ACCOUNT_PATH}/0/${i}`).address,
        );
        const tronHex = hardhatRoot.derivePath(`${TRON_ACCOUNT_PATH}/0/${i}`).address;
        expect(deriveTronAddress(tronXpub, i)).toBe(
          TronWeb.address.fromHex(`41${tronHex.slice(2)}`),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('dispatches on the chain family', () => {
    expect(deriveAddress('EVM', evmXpub, 3)).toBe(deriveEvmAddress(evmXpub, 3));
    expect(deriveAddress('TRON', tronXpub, 3)).toBe(deriveTronAddress(tronXpub, 3));
  });

  it('parses each xpub once', () => {
    const fresh = accountXpub(hardhatRoot, "m/44'/60'/7'");
    const parse = jest.spyOn(bip32, 'fromBase58');
    try {
      for (let index = 0; index < 5; index += 1) deriveEvmAddress(fresh, index);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it.each([-1, 1.5, 2 ** 31, Number.NaN])('refuses index %p', (index) => {
    expect(() => deriveEvmAddress(evmXpub, index)).toThrow(RangeError);
  });

  it('refuses a private extended key without repeating it', () => {
    const xprv = hardhatRoot.derivePath(EVM_ACCOUNT_PATH).extendedKey;
    expect(() => deriveEvmAddress(xprv, 0)).toThrow('got a private one');
    expect(() => deriveEvmAddress(xprv, 0)).not.toThrow(xprv);
  });

  it('refuses keys that are not account level', () => {
    expect(() => deriveEvmAddress(hardhatRoot.neuter().extendedKey, 0)).toThrow('got depth 0');
    const chainXpub = accountXpub(hardhatRoot, `${EVM_ACCOUNT_PATH}/0`);
    expect(() => deriveEvmAddress(chainXpub, 0)).toThrow('got depth 4');
  });

  it('refuses garbage', () => {
    expect(() => deriveTronAddress('xpub-not-a-key', 0)).toThrow('Not a valid BIP-32');
  });

  it('fingerprints a key with the first 16 hex characters of its sha256', () => {
    const expected = createHash('sha256').update(evmXpub).digest('hex').slice(0, 16);
    expect(keyFingerprint(evmXpub)).toBe(expected);
    expect(keyFingerprint(evmXpub)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyFingerprint(tronXpub)).not.toBe(keyFingerprint(evmXpub));
  });
});
