import QRCode from 'qrcode';
import { qrSvg } from './qr';

// The longest URI the page produces: 18 decimals on BSC, a large amount, a chain id of 10 digits
// would be TRON (address only), so BSC testnet's is the worst EVM case.
const LONGEST =
  'ethereum:0x337610d27c682E347C9cD60BD4b3b107C9d34dDd@97/transfer?address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf&uint256=999999999999999999999999999999';

describe('qrSvg', () => {
  it('is an SVG the page CSP lets through: presentation attributes, no style, no script', async () => {
    const svg = await qrSvg(LONGEST);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
    expect(svg).not.toMatch(/\sstyle\s*=|<style|<script|\son[a-z]+\s*=|href/i);
    expect(svg).toContain('fill="#ffffff"');
    expect(svg).toContain('stroke="#000000"');
  });

  it('uses error correction M and a 4-module quiet zone', async () => {
    const svg = await qrSvg(LONGEST);
    const modules = QRCode.create(LONGEST, { errorCorrectionLevel: 'M' }).modules.size;
    const size = modules + 8;
    expect(svg).toContain(`viewBox="0 0 ${size} ${size}"`);
    // The first dark run starts inside the quiet zone's edge.
    expect(svg).toMatch(/d="M4 4\.5h7/);
  });

  it('is small and deterministic', async () => {
    const svg = await qrSvg(LONGEST);
    expect(Buffer.byteLength(svg)).toBeLessThan(8_000);
    expect(await qrSvg(LONGEST)).toBe(svg);
    expect(await qrSvg('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7')).not.toBe(svg);
  });
});
