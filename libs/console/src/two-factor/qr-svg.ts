import QRCode from 'qrcode';

/**
 * The otpauth:// URL as an SVG QR code for the enrolment screen, made as the hosted page makes
 * its payment QR codes (libs/checkout/src/hosted-page/qr.ts): presentation attributes only, so
 * the console can inline it under a strict Content-Security-Policy.
 */
export async function otpauthQrSvg(url: string): Promise<string> {
  const svg = await QRCode.toString(url, {
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
