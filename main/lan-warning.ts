import type { MessageBoxSpec } from './port-choice';

/**
 * lanWarningDialog() builds the confirmation shown before Herald listens on the network, and
 * maps the clicked button to a yes/no. The warning lives in main, so no page can switch the
 * LAN on without the user seeing it.
 */
export function lanWarningDialog(port: number): {
  spec: MessageBoxSpec;
  confirmed(response: number): boolean;
} {
  return {
    spec: {
      type: 'warning',
      title: 'Herald: listen on your network?',
      message: 'Make Herald reachable from other computers on your network?',
      detail:
        `Herald will listen on every network interface on port ${port} instead of only on this ` +
        'computer. Anyone who can reach this computer can then:\n' +
        '• send messages through Herald with any task or template token they know,\n' +
        '• open the console login page and try passwords (attempts are throttled),\n' +
        '• read hosted messages after signing in.\n\n' +
        'Traffic is plain HTTP: tokens and passwords cross the network unencrypted. Only turn ' +
        'this on for a network you trust, or put Herald behind an HTTPS reverse proxy. ' +
        'The change applies after Herald restarts.',
      buttons: ['Listen on the network', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
    },
    confirmed: (response) => response === 0,
  };
}
