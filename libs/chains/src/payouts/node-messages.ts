const REASON_LENGTH = 160;
const HEX_TEXT = /^([0-9a-fA-F]{2})+$/;

/** A node's message fit for logs and the journal: no URLs, no long hex (raw bytes), short. */
export function shortReason(message: string): string {
  const cleaned = message
    .replace(/https?:\/\/\S+/g, '[url]')
    .replace(/(0x)?[0-9a-fA-F]{80,}/g, '[hex]')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > REASON_LENGTH ? `${cleaned.slice(0, REASON_LENGTH - 3)}...` : cleaned;
}

/** java-tron prints a `message` of bytes as hex (visible=false): the UTF-8 text it encodes. */
export function decodeTronMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  const text = HEX_TEXT.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
  return shortReason(text);
}
