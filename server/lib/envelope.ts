import type { Response } from 'express';

/** The contract's response body: `{code, msg, data}`. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T | null;
}

/** Sends an envelope with the HTTP status equal to `code` (design.md). */
export function sendEnvelope<T>(res: Response, code: number, msg: string, data: T | null): void {
  res.status(code).json({ code, msg, data } satisfies Envelope<T>);
}

export function ok<T>(res: Response, data: T): void {
  sendEnvelope(res, 200, 'success', data);
}
