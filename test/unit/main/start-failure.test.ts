import { describe, expect, it } from 'vitest';

import { nativeModuleFailure, startFailureDialog } from '../../../main/start-failure';
import { DataDirLockedError } from '../../../server/data-dir/lock';

const LOG_FILE = '/home/u/.config/Herald/logs/herald.log';

describe('startFailureDialog', () => {
  it('startFailureDialog() says Herald is already running for a locked data folder, with the whole message', () => {
    const err = new DataDirLockedError('/home/u/.config/Herald/data', 4242);

    const dialog = startFailureDialog(err, LOG_FILE);

    expect(dialog.title).toBe('Herald is already running');
    expect(dialog.content.startsWith(`${err.message}\n\n`)).toBe(true);
    expect(dialog.content).toContain('pid 4242');
    expect(dialog.content).toContain(LOG_FILE);
  });

  it('startFailureDialog() shows the first line of any other error, no stack trace, and the log file', () => {
    const err = new Error(
      'Cannot open the database\nSQLITE_CANTOPEN: unable to open database file',
    );
    expect(err.stack).toContain('    at ');

    const dialog = startFailureDialog(err, LOG_FILE);

    expect(dialog.title).toBe('Herald could not start');
    expect(dialog.content.split('\n')[0]).toBe('Cannot open the database');
    expect(dialog.content).not.toContain('SQLITE_CANTOPEN');
    expect(dialog.content).not.toContain('    at ');
    expect(dialog.content).toContain(LOG_FILE);
  });

  it('startFailureDialog() does not take an error merely named like the lock error for it', () => {
    const lookalike = { name: 'DataDirLockedError', message: 'in use' };

    expect(startFailureDialog(lookalike, LOG_FILE).title).toBe('Herald could not start');
  });

  it('startFailureDialog() words a thrown value that is no Error', () => {
    const dialog = startFailureDialog('disk full', LOG_FILE);

    expect(dialog.title).toBe('Herald could not start');
    expect(dialog.content.split('\n')[0]).toBe('disk full');
    expect(dialog.content).toContain(LOG_FILE);
  });

  it('startFailureDialog() says something when the error has no message', () => {
    const dialog = startFailureDialog(new Error(''), LOG_FILE);

    expect(dialog.content.split('\n')[0]).toBe('An unexpected error stopped the start.');
    expect(dialog.content).toContain(LOG_FILE);
  });
});

describe('nativeModuleFailure', () => {
  const dlopenFailed = (message: string) =>
    Object.assign(new Error(message), { code: 'ERR_DLOPEN_FAILED' });

  it('nativeModuleFailure() names the module of each way a native addon fails to load', () => {
    const cases: Array<[Error, string | null]> = [
      // Linux: built against a newer glibc than the machine has.
      [
        dlopenFailed(
          "/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by /opt/Herald/resources/app.asar.unpacked/node_modules/better-sqlite3/build/Release/better_sqlite3.node)",
        ),
        'better-sqlite3',
      ],
      // Windows: a truncated or quarantined file.
      [
        dlopenFailed(
          '\\\\?\\C:\\Users\\ada\\AppData\\Local\\Programs\\Herald\\resources\\app.asar.unpacked\\node_modules\\argon2\\prebuilds\\win32-x64\\argon2.node is not a valid Win32 application.',
        ),
        'argon2',
      ],
      // macOS: the code signature refused.
      [
        dlopenFailed(
          "dlopen(/Applications/Herald.app/Contents/Resources/app.asar.unpacked/node_modules/sqlite3/build/Release/node_sqlite3.node, 0x0001): tried: '/Applications/Herald.app/Contents/Resources/app.asar.unpacked/node_modules/sqlite3/build/Release/node_sqlite3.node' (code signature in <…> not valid for use in process)",
        ),
        'sqlite3',
      ],
      // node-gyp-build when the file was removed.
      [
        new Error(
          'No native build was found for platform=darwin arch=arm64 runtime=electron abi=139 uv=1 armv=8 libc=glibc node=22.19.0 electron=38.2.0\n    loaded from: /Applications/Herald.app/Contents/Resources/app.asar.unpacked/node_modules/argon2\n',
        ),
        'argon2',
      ],
      // bindings when the file was removed.
      [
        new Error(
          'Could not locate the bindings file. Tried:\n → /opt/Herald/resources/app.asar.unpacked/node_modules/@scope/native/build/native.node',
        ),
        '@scope/native',
      ],
      // Another ABI, with no node_modules in the path (a development build).
      [
        dlopenFailed(
          "The module '/work/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115.",
        ),
        null,
      ],
    ];
    for (const [err, module] of cases) {
      expect([err.message.slice(0, 40), nativeModuleFailure(err)]).toEqual([
        err.message.slice(0, 40),
        { module },
      ]);
    }
  });

  it('nativeModuleFailure() leaves other failures alone', () => {
    for (const err of [
      new Error('SQLITE_CANTOPEN: unable to open database file'),
      new Error('listen EADDRINUSE: address already in use 127.0.0.1:8765'),
      new Error('cannot reach herald.node.example.com'),
      'not an error',
    ]) {
      expect(nativeModuleFailure(err)).toBeNull();
    }
  });

  it('startFailureDialog() tells a user what to do about a native module, without the stack', () => {
    const err = dlopenFailed(
      '/opt/Herald/resources/app.asar.unpacked/node_modules/argon2/prebuilds/linux-x64/argon2.glibc.node: invalid ELF header',
    );

    const dialog = startFailureDialog(err, LOG_FILE);

    expect(dialog.title).toBe('Herald could not start');
    expect(dialog.content).toContain('could not load its argon2 module');
    expect(dialog.content).toContain('invalid ELF header');
    expect(dialog.content).toContain('Install Herald again');
    expect(dialog.content).toContain('security software quarantined');
    expect(dialog.content).toContain(LOG_FILE);
    expect(dialog.content).not.toContain('    at ');
  });
});
