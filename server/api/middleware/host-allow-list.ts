import { networkInterfaces } from 'node:os';

import type { NextFunction, Request, Response } from 'express';

import { hostnameOf } from '../../config/http-guards';
import { sendEnvelope } from '../../lib/envelope';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '[::]']);
/** How many allowed Host header spellings a guard remembers. */
const KNOWN_HOST_HEADERS = 64;

export interface HostAllowListOptions {
  /** The address Herald listens on: a specific address is one of its names. */
  listenHost: string;
  /** HERALD_ALLOWED_HOSTS, already normalised by parseAllowedHosts. */
  allowedHosts: string[];
}

/** Addresses of this machine's interfaces, as URL hostnames ("192.168.1.5", "[fe80::1]"). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const name = hostnameOf(entry.family === 'IPv6' ? `[${entry.address}]` : entry.address);
      if (name) out.add(name);
    }
  }
  return out;
}

const isIpLiteral = (hostname: string): boolean =>
  hostname.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);

/**
 * DNS rebinding defence: a page on attacker.example whose name is re-pointed to this machine
 * reaches Herald with `Host: attacker.example`, so only Herald's own names are answered.
 * Runs before every route, static files included.
 */
export function createHostAllowList(opts: HostAllowListOptions) {
  const listen = hostnameOf(
    opts.listenHost.includes(':') ? `[${opts.listenHost}]` : opts.listenHost,
  );
  const wildcard = listen !== undefined && WILDCARD_ADDRESSES.has(listen);
  const allowed = new Set([...LOOPBACK_NAMES, ...opts.allowedHosts]);
  if (listen && !wildcard) allowed.add(listen);

  // Listening on every interface, each interface address is a URL Herald hands out (the desktop
  // shows them); an address literal cannot be rebound, so it is safe to answer. Looked up per
  // request because DHCP changes them while Herald runs.
  const isOwnAddress = (hostname: string) =>
    wildcard && isIpLiteral(hostname) && interfaceAddresses().has(hostname);

  // Host headers already found to name one of `allowed` (a fixed set, and hostnameOf depends on
  // the header alone): clients send the same one every time, and parsing it as a URL is most of
  // this guard's cost. Interface addresses are not remembered, since they change.
  const knownAllowed = new Set<string>();

  return function hostAllowList(req: Request, res: Response, next: NextFunction): void {
    const header = req.headers.host;
    if (header !== undefined && knownAllowed.has(header)) {
      next();
      return;
    }
    if (header === undefined || header.trim() === '') {
      sendEnvelope(
        res,
        400,
        'the request has no Host header: send it (HTTP/1.1 always does) so Herald can tell its own name from a DNS-rebinding attack',
        null,
      );
      return;
    }
    const hostname = hostnameOf(header);
    if (hostname !== undefined && allowed.has(hostname)) {
      // Ports make many spellings of one name; the bound keeps a scan of them from growing it.
      if (knownAllowed.size >= KNOWN_HOST_HEADERS) knownAllowed.clear();
      knownAllowed.add(header);
      next();
      return;
    }
    if (hostname !== undefined && isOwnAddress(hostname)) {
      next();
      return;
    }
    sendEnvelope(
      res,
      421,
      `Herald does not answer to the host name "${header.slice(0, 255)}": if you reach Herald by this name (a LAN name or a reverse proxy), add it to HERALD_ALLOWED_HOSTS (comma-separated) or --allowed-hosts`,
      null,
    );
  };
}
