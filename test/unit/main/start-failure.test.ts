import { describe, expect, it } from 'vitest';

import { startFailureDialog } from '../../../main/start-failure';
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
