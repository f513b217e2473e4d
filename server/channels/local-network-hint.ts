import { BlockList, isIP } from 'node:net';

/**
 * What to add to a delivery error on macOS when the OS, not the network, stopped it: macOS 15
 * asks before an app reaches devices on the local network (Local Network privacy), and until the
 * user allows it every connection to one fails with EHOSTUNREACH and no prompt reappears. Self-
 * hosted ntfy, Gotify, webhooks and mail servers on a 192.168.x address are such devices.
 */

/** The addresses macOS counts as the local network: private, link-local and unique-local. */
const LOCAL_NETWORK = new BlockList();
LOCAL_NETWORK.addSubnet('10.0.0.0', 8, 'ipv4');
LOCAL_NETWORK.addSubnet('172.16.0.0', 12, 'ipv4');
LOCAL_NETWORK.addSubnet('192.168.0.0', 16, 'ipv4');
LOCAL_NETWORK.addSubnet('169.254.0.0', 16, 'ipv4');
LOCAL_NETWORK.addSubnet('fc00::', 7, 'ipv6');
LOCAL_NETWORK.addSubnet('fe80::', 10, 'ipv6');

/** The sentence the delivery log shows. */
export const LOCAL_NETWORK_HINT =
  'macOS may be keeping Herald off the local network: allow Herald in System Settings → Privacy & Security → Local Network';

/** isLocalNetworkHost() is true for an address of the local network, or a `.local` name. */
export function isLocalNetworkHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return LOCAL_NETWORK.check(bare, 'ipv4');
  if (family === 6) return LOCAL_NETWORK.check(bare, 'ipv6');
  return /\.local\.?$/i.test(bare);
}

/**
 * localNetworkHint() is {@link LOCAL_NETWORK_HINT} for an EHOSTUNREACH to the local network on
 * macOS, else null. The address is the error's own (`address`, as Node's connect errors carry
 * it), or the one in its message (nodemailer's "connect EHOSTUNREACH 192.168.1.9:587"), or the
 * host the delivery was going to.
 */
export function localNetworkHint(
  err: unknown,
  host: string | null,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (platform !== 'darwin') return null;
  const e = err as { code?: unknown; address?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.code !== 'EHOSTUNREACH' && !/\bEHOSTUNREACH\b/.test(message)) return null;
  const candidates = [
    typeof e?.address === 'string' ? e.address : null,
    /EHOSTUNREACH\s+(\[?[0-9a-fA-F:.]+\]?):\d+/.exec(message)?.[1] ?? null,
    host,
  ];
  return candidates.some((candidate) => candidate !== null && isLocalNetworkHost(candidate))
    ? LOCAL_NETWORK_HINT
    : null;
}
