import type { Request } from 'express';
import { isIP } from 'node:net';
import { ClientInfo } from '../sessions/console-sessions.repository';

/**
 * Where a request came from, for sessions and audit entries: the full address (the peer, or the
 * client a trusted proxy names, TRUST_PROXY). Rate limits count an IPv6 client per /64
 * (clientAddressOf); an audit log records who it was, so it keeps all 128 bits.
 */
export function clientInfo(request: Pick<Request, 'ip' | 'headers'>): ClientInfo {
  const userAgent = request.headers['user-agent'];
  return {
    ip: fullAddressOf(request.ip),
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
  };
}

/** The address as typed by people: an IPv4 client of a dual-stack socket without `::ffff:`. */
function fullAddressOf(ip: string | undefined): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIP(mapped[1]) === 4) return mapped[1];
  return ip.slice(0, 100);
}
