// Client addresses and CIDR blocks of address-bound tokens: ipaddr.js does the arithmetic, node's isIP decides
// what an address is (so `10.1` and `0x0a.0.0.1` are refused).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A CIDR block or a bare address (/32, /128) in its canonical text, or what is wrong with it. */
function canonicalBlock(text: string): { block: string } | { problem: string } {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address); // node's reading: four decimal parts for IPv4, no zone for IPv6
  const bits = family === 4 ? 32 : 128;
  const invalid = { problem: `"${text}" is no IPv4 or IPv6 address or CIDR block` };
  if (family === 0 || rest.length > 0 || address.includes('%')) return invalid;
  if (prefix !== undefined && (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || Number(prefix) > bits)) return invalid;
  const length = prefix === undefined ? bits : Number(prefix);
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress())
    return { problem: `"${text}" is an IPv4-mapped IPv6 address: write IPv4 clients in IPv4 form` };
  const bytes = parsed.toByteArray();
  const network = bytes.map((byte, i) => {
    const kept = Math.min(8, Math.max(0, length - i * 8));
    return byte & (0xff << (8 - kept)) & 0xff;
  });
  const base = ipaddr.fromByteArray(network).toString();
  if (network.some((byte, i) => byte !== bytes[i]))
    return { problem: `"${text}" has bits set past its /${length}: its block is ${base}/${length}` };
  return { block: `${base}/${length}` };
}

/** A comma-separated list of blocks, canonical and without repeats, or what is wrong with it. */
export function parseAllowFrom(text: string): { allowFrom: string[] } | { problem: string } {
  const blocks: string[] = [];
  for (const item of text.split(',').map((s) => s.trim())) {
    if (item === '') return { problem: 'an empty item is no CIDR block' };
    const read = canonicalBlock(item);
    if ('problem' in read) return read;
    if (!blocks.includes(read.block)) blocks.push(read.block);
  }
  return { allowFrom: blocks };
}

/** Parsed blocks per list: a principal's list is the cached row's, so each is read once. */
const ranges = new WeakMap<readonly string[], Range[]>();

function rangesOf(allowFrom: readonly string[]): Range[] {
  let parsed = ranges.get(allowFrom);
  if (!parsed) {
    parsed = allowFrom.flatMap((block): Range[] => {
      try {
        return [ipaddr.parseCIDR(block)];
      } catch {
        return []; // a block that no longer reads admits nothing (tokens/restrictions.ts, readRestrictions)
      }
    });
    ranges.set(allowFrom, parsed);
  }
  return parsed;
}

/** Whether a client address (canonical text, as the daemon judged it) is in one of the blocks. */
export function addressAllowed(allowFrom: readonly string[], address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return false;
  const client = ipaddr.parse(address);
  // Blocks of the other family never hold the address (ipaddr.js would throw comparing them).
  return rangesOf(allowFrom).some(
    ([net, bits]) => net.kind() === client.kind() && (client as ipaddr.IPv4).match(net as ipaddr.IPv4, bits),
  );
}
