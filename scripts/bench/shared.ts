/** What the benchmarks share: a console client, a free port, and the figures' arithmetic. */

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;

/** A signed-in console client for setting Herald up over its own API. */
export class ConsoleClient {
  private cookie = '';
  constructor(private readonly base: string) {}

  /** The console's answer as it came, signed in with this client's cookie (a file download). */
  async fetch(method: string, url: string, body?: unknown): Promise<Response> {
    const res = await fetch(`${this.base}/api/console${url}`, {
      method,
      headers: { 'Content-Type': 'application/json', Cookie: this.cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const cookie = res.headers.get('set-cookie');
    if (cookie) this.cookie = cookie.split(';')[0];
    return res;
  }

  async call<T>(method: string, url: string, body?: unknown): Promise<T> {
    const res = await this.fetch(method, url, body);
    const answer = (await res.json()) as { code: number; msg: string; data: T };
    if (answer.code !== 200) throw new Error(`${method} ${url}: ${answer.msg}`);
    return answer.data;
  }
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
