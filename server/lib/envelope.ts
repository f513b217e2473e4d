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
  // Written directly rather than through res.json(): an envelope needs no ETag, content
  // negotiation or freshness check, and on the send path Express's extra steps cost about as
  // much as the JSON itself. Node leaves the body out of a HEAD answer by itself.
  const body = JSON.stringify({ code, msg, data } satisfies Envelope<T>);
  res.statusCode = res.locals[ALWAYS_200] === true ? 200 : code;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function ok<T>(res: Response, data: T): void {
  sendEnvelope(res, 200, 'success', data);
}
