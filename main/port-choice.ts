import net from 'node:net';

import { portRefusalOf, type PortRefusal } from './server-contract';

/**
 * Starting the server on the configured port, and what happens when that port is taken.
 * Local scripts post to a fixed port, so Herald never moves to another one on its own: it
 * asks, offering the next free port, and remembers the answer.
 */

/** The question put to the user. */
export interface PortConflict {
  port: number;
  /** The next free port after `port`, or null when none was found nearby. */
  suggestion: number | null;
  /** Loopback or all interfaces: the address that was tried. */
  host: string;
  /** Taken by another program, or refused by the OS (Windows' reserved ranges). */
  reason: PortRefusal;
}

/**
 * The user's answer: a port found free nearby, any port the OS gives (listen on 0, then kept),
 * a port the user types (main/port-prompt.ts), the same port again, or quit.
 */
export type PortAnswer =
  | { action: 'use-port'; port: number }
  | { action: 'any-port' }
  | { action: 'type-port' }
  | { action: 'retry' }
  | { action: 'quit' };

/** A native message box, as Electron's dialog.showMessageBox takes it. */
export interface MessageBoxSpec {
  type: 'warning' | 'question' | 'info' | 'error';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink: true;
}

/**
 * portConflictDialog() builds the message box for a taken port and the function mapping the
 * clicked button back to an answer.
 */
export function portConflictDialog(conflict: PortConflict): {
  spec: MessageBoxSpec;
  answer(response: number): PortAnswer;
} {
  const { port, suggestion, reason } = conflict;
  const answers: PortAnswer[] = [];
  const buttons: string[] = [];
  if (suggestion !== null) {
    buttons.push(`Use port ${suggestion}`);
    answers.push({ action: 'use-port', port: suggestion });
  }
  // Hyper-V, WSL and Docker reserve ports in blocks of a hundred, back to back: the nearby scan
  // can find nothing, and these two always lead somewhere.
  buttons.push('Use any free port');
  answers.push({ action: 'any-port' });
  buttons.push('Type a port…');
  answers.push({ action: 'type-port' });
  buttons.push(`Try port ${port} again`);
  answers.push({ action: 'retry' });
  buttons.push('Quit Herald');
  answers.push({ action: 'quit' });
  const change =
    (suggestion !== null
      ? `Use port ${suggestion} instead (scripts must then send to http://127.0.0.1:${suggestion}), `
      : 'No free port was found nearby. Use ') +
    'any port the system has free, or type one; Herald keeps the port you choose ' +
    '(config.json\'s "port", or Settings → Desktop). Or ';
  const refused = reason === 'refused';
  const cause = refused
    ? `The operating system refuses port ${port}. On Windows, Hyper-V, WSL or Docker reserve ` +
      'ranges of ports (they can change at every restart; `netsh interface ipv4 show ' +
      'excludedportrange protocol=tcp` lists them).'
    : `Another program is listening on port ${port}.`;
  const retry = refused
    ? `try port ${port} again once it is free of the reservation, or quit.`
    : `try port ${port} again after closing the other program, or quit.`;
  return {
    spec: {
      type: 'warning',
      title: refused ? 'Herald: port refused' : 'Herald: port in use',
      message: refused ? `Port ${port} cannot be used` : `Port ${port} is already in use`,
      detail:
        `${cause} Scripts send their messages to this ` +
        'port, so Herald does not switch to another one by itself.\n\n' +
        `${change}${retry}`,
      buttons,
      defaultId: 0,
      cancelId: buttons.length - 1,
      noLink: true,
    },
    answer: (response) => answers[response] ?? { action: 'quit' },
  };
}

/** isPortFree() answers whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => {
      probe.close(() => resolve(true));
    });
  });
}

/**
 * findFreePort() returns the first free port after `from` (within `span` ports, never past
 * 65535), or null; it only suggests, the user decides.
 */
export async function findFreePort(
  from: number,
  host: string,
  isFree: (port: number, host: string) => Promise<boolean> = isPortFree,
  span = 50,
): Promise<number | null> {
  for (let port = from + 1; port <= Math.min(from + span, 65535); port++) {
    if (await isFree(port, host)) return port;
  }
  return null;
}

/** Dependencies of {@link startOnChosenPort}. */
export interface PortChoiceDeps<S> {
  host: string;
  /** Starts the server; rejects with a PortInUseError (or EACCES) when the port can't be had. */
  start(port: number): Promise<S>;
  /** Asks the user (a native dialog in the app). */
  ask(conflict: PortConflict): Promise<PortAnswer>;
  /** Asks for a port to type (main/port-prompt.ts); null when the user cancels. */
  typePort(conflict: PortConflict): Promise<number | null>;
  findFreePort?(from: number, host: string): Promise<number | null>;
}

/**
 * startOnChosenPort() starts on `port`; while the port is taken it asks the user and follows
 * the answer. Resolves the server and the port it runs on (the one the OS gave, for "any free
 * port"), or null when the user quit. Any error other than a taken port is rethrown.
 */
export async function startOnChosenPort<S extends { port: number }>(
  port: number,
  deps: PortChoiceDeps<S>,
): Promise<{ server: S; port: number } | null> {
  const nextFree = deps.findFreePort ?? ((from, host) => findFreePort(from, host));
  let current = port;
  let conflict: PortConflict | null = null;
  for (;;) {
    if (conflict === null) {
      try {
        const server = await deps.start(current);
        return { server, port: server.port };
      } catch (err) {
        const reason = portRefusalOf(err);
        if (reason === null) throw err;
        // Port 0 is the OS's choice: it cannot be refused, so a refusal here names a port.
        const suggestion = await nextFree(current, deps.host);
        conflict = { port: current, suggestion, host: deps.host, reason };
      }
    }
    const answer = await deps.ask(conflict);
    if (answer.action === 'quit') return null;
    if (answer.action === 'type-port') {
      const typed = await deps.typePort(conflict);
      // Cancelled: the same question again.
      if (typed === null) continue;
      current = typed;
    } else if (answer.action === 'use-port') current = answer.port;
    else if (answer.action === 'any-port') current = 0;
    conflict = null;
  }
}
