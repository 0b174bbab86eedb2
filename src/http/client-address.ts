// Who is calling, for the failure budgets, the KDF queue's turns, the connection limits and the
// logs. Only peers named in `trustProxy` (never a hop count, which would trust any peer) may name
// the client in X-Forwarded-For; anyone else's forwarded headers are removed before anything reads
// them: a client cannot choose its address.
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../config.js';

export type TrustFn = (address: string, hop: number) => boolean;

const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'] as const;

/** Throws (with proxy-addr's message) on an address or range it cannot read. */
export function compileTrust(trust: TrustProxy): TrustFn {
  return trust === false ? () => false : proxyaddr.compile(trust);
}

/** The client's address; a peer not trusted loses its forwarded headers (Koa reads them too). */
export function clientAddress(req: IncomingMessage, trust: TrustFn): string {
  const socket = req.socket;
  let peer = peers.get(socket);
  if (peer === undefined) {
    const raw = socket.remoteAddress ?? '';
    peer = { address: normalise(raw), trusted: trust(raw, 0) };
    peers.set(socket, peer);
  }
  if (!peer.trusted) {
    for (const name of FORWARDED) delete req.headers[name];
    return peer.address;
  }
  return normalise(proxyaddr(req, trust));
}

/** A connection's peer, read once: keep-alive requests on it need no parsing again. */
const peers = new WeakMap<object, { address: string; trusted: boolean }>();

/** An address as ipaddr.js writes it, IPv4-mapped IPv6 as IPv4; anything unreadable as it is. */
function normalise(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}

/** The unit the connection limits count a peer address in: its budgetKey, once normalised. */
export function clientKey(peer: string): string {
  return budgetKey(normalise(peer));
}

/** A budget's unit: an IPv4 address, or an IPv6 /64 (one subscriber's: a host can pick any of 2^64). */
export function budgetKey(address: string): string {
  if (!ipaddr.IPv6.isValid(address) || ipaddr.IPv4.isValid(address)) return address;
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
