/** The load generator (autocannon) and waiting for what the load set off. */
import autocannon from 'autocannon';

export interface Load {
  rps: number;
  p99: number;
  ok: number;
}

/**
 * POSTs `body` to `url` over `connections`: `amount` requests, or for the run's seconds; at
 * `overallRate` requests a second if given. Any answer but 2xx stops the bench. A body holding
 * `[<id>]` has it replaced by an id of its own in each request (not autocannon's idReplacement,
 * whose Content-Length assumes another id length than it writes).
 */
export type LoadFn = (
  url: string,
  body: string,
  connections: number,
  amount?: number,
  overallRate?: number,
) => Promise<Load>;

/** The load function of a run whose timed loads last `seconds`. */
export function loadFor(seconds: number): LoadFn {
  return async (url, body, connections, amount, overallRate) => {
    const result = await autocannon({
      url,
      method: 'POST',
      connections,
      ...(amount ? { amount } : { duration: seconds }),
      ...(overallRate && { overallRate }),
      headers: { 'Content-Type': 'application/json' },
      body,
      ...(body.includes('[<id>]') && { requests: [{ setupRequest: withIds(body) }] }),
    });
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }
    return { rps: result.requests.average, p99: result.latency.p99, ok: result['2xx'] };
  };
}

/** Each request's body with `[<id>]` replaced by an id unique to it in this process. */
function withIds(body: string) {
  const prefix = Math.random().toString(36).slice(2, 10);
  let n = 0;
  return (req: autocannon.Request) => ({
    ...req,
    body: body.replace('[<id>]', `${prefix}-${n++}`),
  });
}

export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
