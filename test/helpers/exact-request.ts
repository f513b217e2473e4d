import { request } from 'node:http';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: any;
}

export interface RawRequest {
  method?: string;
  path: string;
  /** Sent exactly as given, Host included (fetch does not let a caller set Host). */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Address to connect to (default 127.0.0.1). */
  connectTo?: string;
}

/** One HTTP/1.1 request over loopback with full control of the headers. */
export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const address = req.connectTo ?? '127.0.0.1';
    const headers = { Host: `${address}:${port}`, ...req.headers };
    const r = request(
      {
        host: address,
        port,
        method: req.method ?? 'GET',
        path: req.path,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: any = text;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}
