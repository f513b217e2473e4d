import type { Worker } from 'node:worker_threads';

/**
 * Waits until a worker thread says it is ready: `verdict` reads each message and answers
 * 'ready', an Error (the worker said it could not start), or undefined (not about starting).
 * Rejects as well when the thread throws or exits first. Only its own listeners are removed
 * after: removing every listener would also stop the worker's message port.
 */
export async function workerReady<M>(
  worker: Worker,
  verdict: (message: M) => 'ready' | Error | undefined,
): Promise<void> {
  let onMessage: (message: M) => void = () => undefined;
  let onError: (err: Error) => void = () => undefined;
  let onExit: (code: number) => void = () => undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onMessage = (message) => {
        const said = verdict(message);
        if (said === 'ready') resolve();
        else if (said) reject(said);
      };
      onError = reject;
      onExit = (code) => reject(new Error(`it exited (code ${code})`));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  } finally {
    worker.off('message', onMessage).off('error', onError).off('exit', onExit);
  }
}
