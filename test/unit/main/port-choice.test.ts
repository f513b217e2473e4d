import net from 'node:net';

import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  findFreePort,
  isPortFree,
  portConflictDialog,
  startOnChosenPort,
  type PortAnswer,
  type PortConflict,
} from '../../../main/port-choice';
import {
  isPortInUseError,
  lanUrlsFor,
  portRefusalOf,
  listenHost,
  windowUrlFor,
} from '../../../main/server-contract';

class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} in use`);
    this.name = 'PortInUseError';
  }
}

/** A typePort for tests whose user never types a port. */
const noTyping = async (): Promise<number | null> => {
  throw new Error('the user was not asked to type a port');
};

describe('startOnChosenPort', () => {
  it('startOnChosenPort() starts on the configured port without asking when it is free', async () => {
    const ask = vi.fn();
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => ({ port }),
      ask,
      findFreePort: async () => 8766,
      typePort: noTyping,
    });

    expect(result).toEqual({ server: { port: 8765 }, port: 8765 });
    expect(ask).not.toHaveBeenCalled();
  });

  it('startOnChosenPort() asks when the port is taken and uses the port the user accepted', async () => {
    const tried: number[] = [];
    const questions: PortConflict[] = [];
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        tried.push(port);
        if (port === 8765) throw new PortInUseError(port);
        return { port };
      },
      ask: async (conflict) => {
        questions.push(conflict);
        return { action: 'use-port', port: conflict.suggestion! };
      },
      findFreePort: async (from) => from + 3,
      typePort: noTyping,
    });

    expect(questions).toEqual([
      { port: 8765, suggestion: 8768, host: '127.0.0.1', reason: 'in-use' },
    ]);
    expect(tried).toEqual([8765, 8768]);
    expect(result?.port).toBe(8768);
  });

  it('startOnChosenPort() treats a port the OS refuses (EACCES, Windows reserved ranges) as a conflict and asks', async () => {
    // The error Node's listen() gives for a port Windows has reserved for Hyper-V or WSL.
    const refused = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:8765'), {
      code: 'EACCES',
      errno: -4092,
      syscall: 'listen',
      address: '127.0.0.1',
      port: 8765,
    });
    const questions: PortConflict[] = [];
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        if (port === 8765) throw refused;
        return { port };
      },
      ask: async (conflict) => {
        questions.push(conflict);
        return { action: 'use-port', port: conflict.suggestion! };
      },
      findFreePort: async () => 8800,
      typePort: noTyping,
    });

    expect(questions).toEqual([
      { port: 8765, suggestion: 8800, host: '127.0.0.1', reason: 'refused' },
    ]);
    expect(result).toEqual({ server: { port: 8800 }, port: 8800 });
  });

  it('startOnChosenPort() never moves to another port on its own: retry tries the same port', async () => {
    const tried: number[] = [];
    const answers: PortAnswer[] = [{ action: 'retry' }, { action: 'retry' }];
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        tried.push(port);
        if (tried.length < 3) throw new PortInUseError(port);
        return { port };
      },
      ask: async () => answers.shift()!,
      findFreePort: async () => 9000,
      typePort: noTyping,
    });

    expect(tried).toEqual([8765, 8765, 8765]);
    expect(result).toEqual({ server: { port: 8765 }, port: 8765 });
  });

  it('startOnChosenPort() listens on a port the OS picks for "any free port" and reports it', async () => {
    // What Hyper-V, WSL and Docker leave: a hundred ports reserved after 8765, nothing nearby.
    const tried: number[] = [];
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        tried.push(port);
        if (port !== 0) throw Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
        // As the server does: port 0 listens where the OS says.
        return { port: 50123 };
      },
      ask: async (conflict) => {
        expect(conflict.suggestion).toBeNull();
        return { action: 'any-port' };
      },
      findFreePort: async () => null,
      typePort: noTyping,
    });

    expect(tried).toEqual([8765, 0]);
    expect(result).toEqual({ server: { port: 50123 }, port: 50123 });
  });

  it('startOnChosenPort() starts on a port the user types, and asks again when they cancel', async () => {
    const tried: number[] = [];
    const typed: Array<number | null> = [null, 9123];
    const asked: PortConflict[] = [];
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        tried.push(port);
        if (port === 8765) throw new PortInUseError(port);
        return { port };
      },
      ask: async (conflict) => {
        asked.push(conflict);
        return { action: 'type-port' };
      },
      findFreePort: async () => null,
      typePort: async () => typed.shift()!,
    });

    // Cancelled once: the same question again, without trying to listen meanwhile.
    expect(asked).toHaveLength(2);
    expect(asked[1]).toEqual(asked[0]);
    expect(tried).toEqual([8765, 9123]);
    expect(result).toEqual({ server: { port: 9123 }, port: 9123 });
  });

  it('startOnChosenPort() resolves null when the user quits', async () => {
    const result = await startOnChosenPort(8765, {
      host: '127.0.0.1',
      start: async (port) => {
        throw new PortInUseError(port);
      },
      ask: async () => ({ action: 'quit' }),
      findFreePort: async () => null,
      typePort: noTyping,
    });

    expect(result).toBeNull();
  });

  it('startOnChosenPort() rethrows errors other than a taken port without asking', async () => {
    const ask = vi.fn();

    await expect(
      startOnChosenPort(8765, {
        host: '127.0.0.1',
        start: async () => {
          throw new Error('database is locked');
        },
        ask,
        typePort: noTyping,
      }),
    ).rejects.toThrow('database is locked');
    expect(ask).not.toHaveBeenCalled();
  });
});

describe('portConflictDialog', () => {
  it('portConflictDialog() says why when the OS refuses the port and offers the same way out', () => {
    const dialog = portConflictDialog({
      port: 8765,
      suggestion: 8766,
      host: '127.0.0.1',
      reason: 'refused',
    });

    expect(dialog.spec.title).toBe('Herald: port refused');
    expect(dialog.spec.message).toBe('Port 8765 cannot be used');
    expect(dialog.spec.detail).toContain('Hyper-V, WSL or Docker');
    expect(dialog.spec.detail).toContain('excludedportrange');
    expect(dialog.spec.buttons).toEqual([
      'Use port 8766',
      'Use any free port',
      'Type a port…',
      'Try port 8765 again',
      'Quit Herald',
    ]);
    expect(dialog.answer(0)).toEqual({ action: 'use-port', port: 8766 });
  });

  it('portConflictDialog() offers the suggested port, any port, a typed one, a retry and quit, mapping each button', () => {
    const dialog = portConflictDialog({
      port: 8765,
      suggestion: 8766,
      host: '127.0.0.1',
      reason: 'in-use',
    });

    expect(dialog.spec.buttons).toEqual([
      'Use port 8766',
      'Use any free port',
      'Type a port…',
      'Try port 8765 again',
      'Quit Herald',
    ]);
    expect(dialog.spec.message).toBe('Port 8765 is already in use');
    expect(dialog.spec.detail).toContain('http://127.0.0.1:8766');
    expect(dialog.spec.detail).toContain('config.json\'s "port"');
    expect(dialog.answer(0)).toEqual({ action: 'use-port', port: 8766 });
    expect(dialog.answer(1)).toEqual({ action: 'any-port' });
    expect(dialog.answer(2)).toEqual({ action: 'type-port' });
    expect(dialog.answer(3)).toEqual({ action: 'retry' });
    expect(dialog.answer(4)).toEqual({ action: 'quit' });
    expect(dialog.spec.cancelId).toBe(4);
  });

  it('portConflictDialog() still leads somewhere when no free port was found nearby', () => {
    const dialog = portConflictDialog({
      port: 8765,
      suggestion: null,
      host: '127.0.0.1',
      reason: 'refused',
    });

    expect(dialog.spec.buttons).toEqual([
      'Use any free port',
      'Type a port…',
      'Try port 8765 again',
      'Quit Herald',
    ]);
    expect(dialog.spec.detail).toContain('No free port was found nearby.');
    expect(dialog.answer(0)).toEqual({ action: 'any-port' });
    expect(dialog.answer(1)).toEqual({ action: 'type-port' });
    expect(dialog.answer(2)).toEqual({ action: 'retry' });
    expect(dialog.answer(3)).toEqual({ action: 'quit' });
  });

  it('portConflictDialog() treats an unexpected response (dialog dismissed) as quit', () => {
    expect(
      portConflictDialog({ port: 1, suggestion: 2, host: 'h', reason: 'in-use' }).answer(-1),
    ).toEqual({
      action: 'quit',
    });
  });
});

describe('isPortFree and findFreePort', () => {
  let holder: net.Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
    holder = undefined;
  });

  async function occupy(): Promise<number> {
    holder = net.createServer();
    await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', resolve));
    return (holder.address() as net.AddressInfo).port;
  }

  it('isPortFree() answers false for a port another socket listens on', async () => {
    const port = await occupy();

    await expect(isPortFree(port, '127.0.0.1')).resolves.toBe(false);
  });

  it('isPortFree() answers true once the port is released', async () => {
    const port = await occupy();
    await new Promise<void>((resolve) => holder!.close(() => resolve()));
    holder = undefined;

    await expect(isPortFree(port, '127.0.0.1')).resolves.toBe(true);
  });

  it('findFreePort() skips taken ports and stops at 65535', async () => {
    const taken = new Set([8766, 8767]);
    const isFree = async (port: number) => !taken.has(port);

    await expect(findFreePort(8765, '127.0.0.1', isFree)).resolves.toBe(8768);
    await expect(findFreePort(65535, '127.0.0.1', isFree)).resolves.toBeNull();
    await expect(findFreePort(8765, '127.0.0.1', async () => false, 5)).resolves.toBeNull();
  });
});

describe('server contract helpers', () => {
  it('portRefusalOf() tells a taken port from a refused one, the server’s error included', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    const refused = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    // server/index.ts's PortInUseError carries the listen error's code.
    const serverRefused = Object.assign(new PortInUseError(80), { code: 'EACCES' });
    expect(portRefusalOf(inUse)).toBe('in-use');
    expect(portRefusalOf(refused)).toBe('refused');
    expect(portRefusalOf(serverRefused)).toBe('refused');
    expect(portRefusalOf(new PortInUseError(1))).toBe('in-use');
    expect(portRefusalOf(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBeNull();
    expect(isPortInUseError(refused)).toBe(true);
  });

  it('isPortInUseError() recognises PortInUseError by name and a raw EADDRINUSE', () => {
    const raw = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });

    expect(isPortInUseError(new PortInUseError(1))).toBe(true);
    expect(isPortInUseError(raw)).toBe(true);
    expect(isPortInUseError(new Error('other'))).toBe(false);
    expect(isPortInUseError('PortInUseError')).toBe(false);
  });

  it('listenHost() is loopback unless the LAN is on', () => {
    expect(listenHost(false)).toBe('127.0.0.1');
    expect(listenHost(true)).toBe('0.0.0.0');
  });

  it('windowUrlFor() keeps the window on loopback when the server listens on all interfaces', () => {
    expect(windowUrlFor('http://0.0.0.0:8765')).toBe('http://127.0.0.1:8765');
    expect(windowUrlFor('http://127.0.0.1:8765/')).toBe('http://127.0.0.1:8765');
  });

  it('lanUrlsFor() lists external IPv4 addresses only', () => {
    const urls = lanUrlsFor(8765, {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
      eth0: [
        { address: '192.168.1.20', family: 'IPv4', internal: false },
        { address: 'fe80::1', family: 'IPv6', internal: false },
      ],
      wlan0: [{ address: '10.0.0.5', family: 4, internal: false }],
      down: undefined,
    });

    expect(urls).toEqual(['http://192.168.1.20:8765', 'http://10.0.0.5:8765']);
  });
});
