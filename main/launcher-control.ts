/**
 * How `npm start` asks the desktop app to stop on Windows. There, Node's `child.kill()` is
 * TerminateProcess: Electron would die without closing the database or releasing its lock. So
 * the launcher starts Electron with a pipe as standard input and writes `quit` to it; when the
 * launcher itself goes away (its window closed, Ctrl-C, killed) the pipe ends, which means the
 * same. Either way the app runs its ordered shutdown.
 */

/** The launcher's one request. */
export const QUIT_LINE = 'quit';

/** The part of a readable stream (process.stdin) the watcher reads. */
export interface LineSource {
  setEncoding(encoding: 'utf8'): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  resume(): unknown;
}

/** watchLauncherControl() calls `quit` once, on a `quit` line or when the input ends. */
export function watchLauncherControl(input: LineSource, quit: () => void): void {
  let done = false;
  let buffered = '';
  const stop = (): void => {
    if (done) return;
    done = true;
    quit();
  };
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split(/\r?\n/);
    buffered = lines.pop() ?? '';
    if (lines.some((line) => line.trim() === QUIT_LINE)) stop();
  });
  input.on('end', stop);
  input.on('close', stop);
  input.resume();
}
