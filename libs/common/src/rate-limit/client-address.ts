import { normalizeIp } from '@nestjs/throttler';

/**
 * The address limits count per: the peer, or the client a trusted proxy names (TRUST_PROXY).
 * IPv6 clients count per /64, since one host usually holds a whole /64 and could rotate within it.
 */
export function clientAddressOf(request: { ip?: string }): string {
  return request.ip ? normalizeIp(request.ip) : 'unknown';
}
