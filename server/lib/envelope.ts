import type { Response } from 'express';

/** The contract's response body: `{code, msg, data}`. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T | null;
}

const ALWAYS_200 = 'heraldAlways200';

/**
 * Makes every envelope of this response go out as HTTP 200, errors included, with only the
 * body's code telling them apart (the send APIs under `sendApi.httpStatus: 'always200'`).
 */
export function answerAlways200(res: Response): void {
  res.locals[ALWAYS_200] = true;
}

/** Sends an envelope with the HTTP status equal to `code` (design.md), unless answerAlways200. */
export function sendEnvelope<T>(res: Response, code: number, msg: string, data: T | null): void {
  res
    .status(res.locals[ALWAYS_200] === true ? 200 : code)
    .json({ code, msg, data } satisfies Envelope<T>);
}

export function ok<T>(res: Response, data: T): void {
  sendEnvelope(res, 200, 'success', data);
}
