import { describe, expect, it } from 'vitest';

import { classifySmtpError } from '../../../../server/channels/email';
import { transportError } from '../../../../server/channels/http-failure';
import {
  isLocalNetworkHost,
  localNetworkHint,
  LOCAL_NETWORK_HINT,
} from '../../../../server/channels/local-network-hint';

/**
 * The error Node's net.connect gives on macOS when Local Network privacy blocks the connection
 * (errno 65, EHOSTUNREACH, "No route to host"), as node:http passes it on.
 */
function connectError(address: string, port: number, code = 'EHOSTUNREACH') {
  return Object.assign(new Error(`connect ${code} ${address}:${port}`), {
    errno: code === 'EHOSTUNREACH' ? -65 : -61,
    code,
    syscall: 'connect',
    address,
    port,
  });
}

describe('localNetworkHint', () => {
  it('isLocalNetworkHost() knows private, link-local and unique-local addresses, and .local names', () => {
    for (const host of [
      '192.168.1.20',
      '10.0.0.5',
      '172.20.1.1',
      '169.254.10.1',
      'fd12:3456::1',
      '[fe80::1%en0]',
      'nas.local',
    ]) {
      expect([host, isLocalNetworkHost(host)]).toEqual([host, true]);
    }
    for (const host of ['93.184.216.34', '172.32.0.1', '8.8.8.8', 'example.com', '2001:db8::1']) {
      expect([host, isLocalNetworkHost(host)]).toEqual([host, false]);
    }
  });

  it('localNetworkHint() points at System Settings for an unreachable LAN host on macOS only', () => {
    const blocked = connectError('192.168.1.20', 443);
    expect(localNetworkHint(blocked, 'gotify.home', 'darwin')).toBe(LOCAL_NETWORK_HINT);
    expect(LOCAL_NETWORK_HINT).toContain('System Settings → Privacy & Security → Local Network');
    expect(localNetworkHint(blocked, 'gotify.home', 'linux')).toBeNull();
    expect(localNetworkHint(blocked, 'gotify.home', 'win32')).toBeNull();
    // Another failure, or a host out on the internet: the network's doing, not macOS's.
    expect(
      localNetworkHint(connectError('192.168.1.20', 443, 'ECONNREFUSED'), null, 'darwin'),
    ).toBeNull();
    expect(
      localNetworkHint(connectError('93.184.216.34', 443), 'example.com', 'darwin'),
    ).toBeNull();
    // The error without an address: the host the delivery went to decides.
    const bare = Object.assign(new Error('connect EHOSTUNREACH'), { code: 'EHOSTUNREACH' });
    expect(localNetworkHint(bare, 'printer.local', 'darwin')).toBe(LOCAL_NETWORK_HINT);
  });

  it('transportError() adds the hint to a webhook’s network error on macOS, still worth retrying', () => {
    const err = transportError(
      connectError('192.168.1.20', 8080),
      'http://192.168.1.20:8080/hook',
      'darwin',
    );
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(
      `network error talking to 192.168.1.20:8080: connect EHOSTUNREACH 192.168.1.20:8080; ${LOCAL_NETWORK_HINT}`,
    );
    expect(
      transportError(connectError('192.168.1.20', 8080), 'http://192.168.1.20:8080/hook', 'linux')
        .message,
    ).not.toContain('Local Network');
  });

  it('classifySmtpError() adds it to a mail server on the LAN, as nodemailer reports the failure', () => {
    // nodemailer wraps the socket error: code ESOCKET, the address only in the message.
    const socket = Object.assign(new Error('connect EHOSTUNREACH 192.168.1.9:587'), {
      code: 'ESOCKET',
      command: 'CONN',
    });
    const err = classifySmtpError(socket, 'mail.home.arpa', 'darwin');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain(
      'SMTP connection failed (CONN): connect EHOSTUNREACH 192.168.1.9:587',
    );
    expect(err.message).toContain(LOCAL_NETWORK_HINT);
    expect(classifySmtpError(socket, 'mail.home.arpa', 'linux').message).not.toContain(
      'Local Network',
    );
  });
});
