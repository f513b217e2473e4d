import { BlockList, isIP } from 'node:net';

/**
 * The addresses a fetch on a sender's behalf must not reach unless the install allows it
 * (settings `allowPrivateAddresses`): anything that is not the public internet. A URL given to
 * Herald by a caller could otherwise make Herald read its own admin port, a cloud metadata
 * service (169.254.169.254) or a router's page, and hand the answer back as a file.
 */
const RANGES: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved (IETF protocol assignments)'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved (benchmarking)'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['fc00::', 7, 'ipv6', 'unique-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const LISTS = RANGES.map(([network, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, family, kind };
});

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host: mapped
 * (::ffff:a.b.c.d), the deprecated compatible form (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d).
 * Without this, ::ffff:127.0.0.1 would pass as "some IPv6 address" and connect to loopback.
 */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const head = groups.slice(0, 6);
  const zero = (g: number): boolean => g === 0;
  const mapped = head.slice(0, 5).every(zero) && head[5] === 0xffff;
  const compatible = head.every(zero) && (groups[6] !== 0 || groups[7] > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && head.slice(2).every(zero);
  if (!mapped && !compatible && !nat64) return null;
  const [hi, lo] = [groups[6], groups[7]];
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1].split('.').map(Number);
    if (parts.some((p) => p > 255)) return null;
    const tail = `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
    text = text.slice(0, -dotted[1].length) + tail;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const split = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const left = split(halves[0]);
  const right = halves.length === 2 ? split(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const all = [...left, ...Array<string>(missing).fill('0'), ...right];
  const groups = all.map((g) => Number.parseInt(g, 16));
  return groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff) ? null : groups;
}

/**
 * privateAddressKind() names why an IP address is not on the public internet ("loopback",
 * "private", "link-local" …), or is null for a public one. A string that is not an IP address
 * is refused too ("not an IP address"): the caller resolves names first.
 */
export function privateAddressKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== null) {
      const inner = privateAddressKind(v4);
      return inner === null ? null : `${inner} (IPv4-mapped)`;
    }
  }
  const wanted = family === 4 ? 'ipv4' : 'ipv6';
  for (const { list, family: f, kind } of LISTS) {
    if (f === wanted && list.check(bare, wanted)) return kind;
  }
  return null;
}
