/** HTTP status codes the envelope uses; design.md: the status line mirrors the body code. */
export type ErrorCode = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 417 | 429 | 431 | 500;

/**
 * An error that carries its own envelope code, so handlers never infer a status from text.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly data: unknown;

  constructor(code: ErrorCode, message: string, data: unknown = null) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.data = data;
  }
}

export const badRequest = (msg: string): AppError => new AppError(400, msg);
export const unauthorized = (msg = 'unauthorized'): AppError => new AppError(401, msg);
export const notFound = (msg: string): AppError => new AppError(404, msg);
export const conflict = (msg: string): AppError => new AppError(409, msg);

/** Flattens an unknown thrown value into one readable line. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
