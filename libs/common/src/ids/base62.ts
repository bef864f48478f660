const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian base62 of the bytes, padded so equal-length inputs give equal-length outputs. */
export function encodeBase62(bytes: Uint8Array): string {
  let value = BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'));
  const width = Math.ceil((bytes.length * 8) / Math.log2(62));
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(width, '0');
}
