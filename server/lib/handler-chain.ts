import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs Express handlers one after the other the way a router runs a route's handlers: a
 * handler goes on by calling next(), and an error it passes to next(), throws or rejects with
 * goes to `next` (so on to the app's error handlers). No path is matched per handler, which is
 * what a router spends most of its time on.
 *
 * The last handler must answer or fail: calling next() after it is a programming error, since
 * the router it stands in for would go on to routes the chain does not know.
 */
export function runHandlers(
  handlers: readonly RequestHandler[],
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  let index = 0;
  const step = (err?: unknown): void => {
    if (err) {
      next(err);
      return;
    }
    const handler = handlers[index++];
    if (handler === undefined) {
      next(new Error(`${req.method} ${req.url}: the last handler of a chain went on`));
      return;
    }
    try {
      const ret: unknown = handler(req, res, step);
      if (ret instanceof Promise) {
        // Express 5's message for a rejection without a reason.
        ret.then(undefined, (error: unknown) => next(error || new Error('Rejected promise')));
      }
    } catch (error) {
      next(error);
    }
  };
  step();
}
