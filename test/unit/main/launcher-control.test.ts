import { once } from 'node:events';
import { PassThrough } from 'node:stream';

import { describe, expect, it, vi } from 'vitest';

import { watchLauncherControl } from '../../../main/launcher-control';

/** Lets the stream hand written chunks to its listeners. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function watched(options: { autoDestroy?: boolean } = {}) {
  const input = new PassThrough(options);
  const quit = vi.fn();
  watchLauncherControl(input, quit);
  return { input, quit };
}

describe('watchLauncherControl', () => {
  it('watchLauncherControl() quits on a quit line', async () => {
    const { input, quit } = watched();

    input.write('quit\n');
    await settle();

    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() quits on a quit line ending in CRLF, as Windows writes it', async () => {
    const { input, quit } = watched();

    input.write('quit\r\n');
    await settle();

    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() quits on a quit line split across chunks', async () => {
    const { input, quit } = watched();

    input.write('qu');
    await settle();
    input.write('it\r');
    await settle();
    expect(quit).not.toHaveBeenCalled();

    input.write('\n');
    await settle();
    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() finds the quit line among others in one chunk', async () => {
    const { input, quit } = watched();

    input.write('hello\nquit\nbye\n');
    await settle();

    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() ignores other lines and an unfinished quit', async () => {
    const { input, quit } = watched();

    input.write('hello\nQUIT\nquit now\nquitting\n\nquit');
    await settle();

    expect(quit).not.toHaveBeenCalled();
  });

  it('watchLauncherControl() quits when the input ends, the launcher having gone away', async () => {
    // No 'close' after 'end' here, so the end alone must do it.
    const { input, quit } = watched({ autoDestroy: false });
    input.write('hello\n');
    await settle();
    expect(quit).not.toHaveBeenCalled();

    input.end();
    await once(input, 'end');
    await settle();

    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() quits when the input is destroyed without ending', async () => {
    const { input, quit } = watched();

    input.destroy();
    await once(input, 'close');

    expect(quit).toHaveBeenCalledTimes(1);
  });

  it('watchLauncherControl() quits only once after a quit line, another one and the end', async () => {
    const { input, quit } = watched();

    input.write('quit\n');
    await settle();
    input.write('quit\n');
    input.end();
    await once(input, 'close');

    expect(quit).toHaveBeenCalledTimes(1);
  });
});
