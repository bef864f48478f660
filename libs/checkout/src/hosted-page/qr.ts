import QRCode from 'qrcode';

/**
 * The QR code of a payment URI as an SVG document, served as `/checkout/<id>/qr.svg` and shown by
 * the page as an <img>. Error correction M (15 %) survives a scratched or glaring phone screen and
 * keeps an 18-decimal EIP-681 link scannable; the margin is the 4-module quiet zone scanners need.
 * qrcode's SVG uses presentation attributes only (fill, stroke), never `style`.
 */
export async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 4,
    color: { dark: '#000000', light: '#ffffff' },
  });
  if (/\sstyle\s*=|<style|<script/i.test(svg)) {
    throw new Error('qrcode produced an SVG with inline style or script.');
  }
  return svg;
}
