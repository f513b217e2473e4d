import type { Request } from 'express';

/**
 * One cookie's value from the request. A value whose %-escapes do not decode cannot be one
 * Herald set, so it reads as absent (not signed in) instead of throwing.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
