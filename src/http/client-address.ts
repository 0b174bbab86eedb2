// Who is calling, for budgets, queues, limits and logs: only peers named in `trustProxy` may name the client in
// X-Forwarded-For; anyone else's forwarded headers are removed before anything reads them.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../config.js';

export type TrustFn = (address: string, hop: number) => boolean;

const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'] as const;

/** Throws (with proxy-addr's message) on an address or range it cannot read. */
export function compileTrust(trust: TrustProxy): TrustFn {
  return trust === false ? () => false : proxyaddr.compile(trust);
}

/** Whose request: the client's address, or (`forwardedRefused`) the proxy's, when it forwarded no addresses. */
export interface Client {
  address: string;
  /** A trusted proxy's X-Forwarded-For holds something that is no IP address: answered 400. */
  forwardedRefused: boolean;
}

/**
 * The client's canonical address. Forwarded headers count only from a trusted proxy, and there only an
 * X-Forwarded-For of IP addresses (else `forwardedRefused`) and an X-Forwarded-Proto of `http` or `https`.
 */
export function clientAddress(req: IncomingMessage, trust: TrustFn): Client {
  const socket = req.socket;
  let peer = peers.get(socket);
  if (peer === undefined) {
    const raw = socket.remoteAddress ?? '';
    peer = { address: canonicalAddress(raw) ?? raw, trusted: trust(raw, 0) };
    peers.set(socket, peer);
  }
  const headers = req.headers;
  if (!peer.trusted) {
    for (const name of FORWARDED) delete headers[name];
    return { address: peer.address, forwardedRefused: false };
  }
  delete headers['x-forwarded-host'];
  delete headers.forwarded;
  const proto = headers['x-forwarded-proto'];
  if (proto !== 'http' && proto !== 'https') delete headers['x-forwarded-proto'];
  const forwardedFor = [headers['x-forwarded-for'] ?? []].flat().join(',');
  if (forwardedFor.trim() === '') return { address: peer.address, forwardedRefused: false };
  if (!forwardedFor.split(',').every((entry) => canonicalAddress(entry.trim()) !== null)) {
    delete headers['x-forwarded-for'];
    return { address: peer.address, forwardedRefused: true };
  }
  const address = proxyaddr(req, trust);
  return { address: canonicalAddress(address) ?? peer.address, forwardedRefused: false };
}

/** A connection's peer, read once: keep-alive requests on it need no parsing again. */
const peers = new WeakMap<object, { address: string; trusted: boolean }>();

/** An IP address as canonical text (IPv4 dotted decimal, mapped IPv6 as IPv4, other IPv6 per RFC 5952), or null. */
export function canonicalAddress(text: string): string | null {
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6 || text.includes('%')) return null;
  const parsed = ipaddr.IPv6.parse(text);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/** The unit the connection limits count a peer address in: its budgetKey, once normalised. */
export function clientKey(peer: string): string {
  return budgetKey(canonicalAddress(peer) ?? peer);
}

/** A budget's unit: an IPv4 address, or an IPv6 /64 (one subscriber's: a host can pick any of 2^64). */
export function budgetKey(address: string): string {
  if (!ipaddr.IPv6.isValid(address) || ipaddr.IPv4.isValid(address)) return address;
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
