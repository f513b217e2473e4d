import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import type { MessageAttachment, OutboundMessage } from '../../../server/channels/channel-adapter';
import { adapterFor } from '../../../server/channels/registry';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/**
 * Issue 43 §2: files sent with a message, uploaded (multipart: payload_json and files[]) or
 * given by URL, are stored before the send is answered and reach the adapter's
 * `message.attachments` (here the custom webhook's); every refusal stores nothing.
 */

// The smallest PNG: its bytes say image/png whatever the name says.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d6a2a70000000049454e44ae426082',
  'hex',
);
const HTML = Buffer.from('<html><script>alert(1)</script></html>');

describe('files sent with a message', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let files: Server;
  let filesUrl: string;
  let v2Token: string;
  let v1Token: string;
  const delivered: Array<{ title: string; attachments: MessageAttachment[] }> = [];

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
    files = createServer((req, res) => {
      if (req.url === '/pixel') {
        res.setHeader('content-type', 'text/plain');
        res.end(PNG);
      } else if (req.url === '/page.html') {
        res.end(HTML);
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
    v2Token = (await herald.createTemplate({ text: 'files' }, textInstances([hook.id]))).token;
    v1Token = (await herald.createTask('files v1', textInstances([hook.id]))).token;
    // What reaches the adapter: the webhook adapter's own send, watched.
    const adapter = adapterFor(herald.server.ctx.registry, 'webhook')!;
    const send = adapter.send.bind(adapter);
    vi.spyOn(adapter, 'send').mockImplementation(async (config, message: OutboundMessage, rt) => {
      delivered.push({ title: message.title, attachments: [...(message.attachments ?? [])] });
      return send(config, message, rt);
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((resolve) => files.close(() => resolve()));
    await peer.close();
    await herald.close(true);
  });

  beforeEach(async () => {
    await herald.console.ok('PUT', '/settings', {
      allowPrivateAddresses: false,
      attachments: { maxFileMb: 15, maxFiles: 10, maxTotalMb: 1024, keepDays: 7 },
    });
  });

  const rows = () =>
    herald.server.ctx.sequelize.query<{ id: string; send_id: number | null; filename: string }>(
      'SELECT id, send_id, filename FROM attachments ORDER BY created_at, position',
      { type: QueryTypes.SELECT },
    );
  // The folders are made with the first file that arrives.
  const list = (path: string) => (existsSync(path) ? readdirSync(path) : []);
  const storedFiles = () =>
    list(join(herald.dataDir, 'attachments')).filter((name) => name !== '.staging');
  const staged = () => list(join(herald.dataDir, 'attachments', '.staging'));

  const form = (payload: unknown, parts: Array<[string, Buffer, string]>) => {
    const body = new FormData();
    if (payload !== undefined) {
      body.set('payload_json', typeof payload === 'string' ? payload : JSON.stringify(payload));
    }
    for (const [field, bytes, name] of parts) body.append(field, new Blob([bytes]), name);
    return body;
  };
  const postForm = async (path: string, body: FormData) => {
    const res = await fetch(`${herald.url}${path}`, { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as { code: number; msg: string } };
  };
  const deliveredTitled = (title: string) =>
    herald.waitFor(() => delivered.find((d) => d.title === title));

  it('stores uploaded files before answering and hands them to the adapter, images inline', async () => {
    const earlier = new Set((await rows()).map((r) => r.id));
    const res = await postForm(
      '/api/v2/message/send',
      form({ token: v2Token, title: 'upload' }, [
        ['files[]', PNG, 'shot.txt'],
        ['files[]', HTML, 'page.html'],
      ]),
    );
    expect(res.body).toMatchObject({ code: 200 });
    // Answered: the rows and the files are there already.
    const stored = (await rows()).filter((r) => !earlier.has(r.id));
    expect(stored.map((r) => r.filename)).toEqual(['shot.txt', 'page.html']);
    expect(storedFiles()).toEqual(expect.arrayContaining(stored.map((r) => r.id)));

    const seen = await deliveredTitled('upload');
    expect(seen.attachments.map((a) => [a.filename, a.mime, a.inline, a.size])).toEqual([
      ['shot.txt', 'image/png', true, PNG.length],
      ['page.html', 'application/octet-stream', false, HTML.length],
    ]);
    expect(await seen.attachments[0].read()).toEqual(PNG);
    expect(seen.attachments[0].url).toBe(
      `${herald.url}/api/files/${seen.attachments[0].id}/shot.txt`,
    );
    expect(seen.attachments[0].id).toMatch(/^[A-Za-z0-9_-]{24}$/);

    // Served: the image inline, the HTML as a download, both nosniff and sandboxed.
    const image = await fetch(seen.attachments[0].url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; filename="shot.txt"/);
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
    const page = await fetch(seen.attachments[1].url);
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    expect(page.headers.get('content-type')).toBe('application/octet-stream');
    expect((await fetch(`${herald.url}/api/files/${'A'.repeat(24)}/x.png`)).status).toBe(404);
    // Tied to their send once it was accepted (before the answer), and listed in its log.
    const sendId = stored[0].send_id;
    expect(sendId).not.toBeNull();
    const detail = await herald.console.ok('GET', `/logs/${sendId}`);
    expect(detail.attachments).toEqual([
      { name: 'shot.txt', type: 'image/png', size: PNG.length, url: seen.attachments[0].url },
      {
        name: 'page.html',
        type: 'application/octet-stream',
        size: HTML.length,
        url: seen.attachments[1].url,
      },
    ]);
    const stats = await herald.console.ok('GET', '/stats');
    const usage = await herald.server.ctx.attachments.usage();
    expect(usage.bytes).toBeGreaterThanOrEqual(PNG.length + HTML.length);
    expect(stats.files).toEqual({ count: usage.files, bytes: usage.bytes });
  });

  it('takes files on the generic hook as multipart, payload_json as its body', async () => {
    const res = await postForm(
      `/api/hooks/generic/${v2Token}`,
      form({ title: 'from a hook', deploy: 'done' }, [['files[]', PNG, 'graph.png']]),
    );
    expect(res.body).toMatchObject({ code: 200 });
    const seen = await deliveredTitled('from a hook');
    expect(seen.attachments.map((a) => [a.filename, a.mime])).toEqual([['graph.png', 'image/png']]);
  });

  it('fetches files given by URL (JSON, V1) when private addresses are allowed, sniffing the type', async () => {
    await herald.console.ok('PUT', '/settings', { allowPrivateAddresses: true });
    const before = (await rows()).length;
    const res = await herald.sendV1({
      token: v1Token,
      title: 'by url',
      text: 'see attached',
      mode: 'async',
      attachments: [{ url: `${filesUrl}/pixel`, filename: 'chart' }],
    });
    expect(res.body).toMatchObject({ code: 200 });
    expect((await rows()).length).toBe(before + 1);
    const seen = await deliveredTitled('by url');
    expect(seen.attachments.map((a) => [a.filename, a.mime, a.inline])).toEqual([
      ['chart', 'image/png', true],
    ]);
  });

  it('removes files past keepDays and files whose send was pruned, and the space they took', async () => {
    const earlier = new Set((await rows()).map((r) => r.id));
    const res = await postForm(
      '/api/v2/message/send',
      form({ token: v2Token, title: 'to prune' }, [
        ['files[]', PNG, 'old.png'],
        ['files[]', HTML, 'orphan.html'],
      ]),
    );
    expect(res.body.code).toBe(200);
    const [old, orphan] = (await rows()).filter((r) => !earlier.has(r.id));
    const { sequelize, writeLock, attachments } = herald.server.ctx;
    const before = await attachments.usage();
    // One file's time is up; the other's send is gone (as retention deletes sends).
    await writeLock.run(async ({ transaction }) => {
      await sequelize.query('UPDATE attachments SET expires_at = 0 WHERE id = :id', {
        replacements: { id: old.id },
        transaction,
      });
      await sequelize.query('UPDATE attachments SET send_id = 2147483000 WHERE id = :id', {
        replacements: { id: orphan.id },
        transaction,
      });
    });
    expect(await attachments.prune()).toEqual({ files: 2, bytes: PNG.length + HTML.length });
    expect(storedFiles()).not.toContain(old.id);
    expect(storedFiles()).not.toContain(orphan.id);
    expect((await rows()).map((r) => r.id)).not.toContain(old.id);
    expect(await attachments.usage()).toEqual({
      files: before.files - 2,
      bytes: before.bytes - PNG.length - HTML.length,
    });
    expect((await fetch(`${herald.url}/api/files/${old.id}/old.png`)).status).toBe(404);
  });

  it("removes expired files with the console's Prune now too", async () => {
    const earlier = new Set((await rows()).map((r) => r.id));
    const res = await postForm(
      '/api/v2/message/send',
      form({ token: v2Token, title: 'prune now' }, [['files[]', PNG, 'soon.png']]),
    );
    expect(res.body.code).toBe(200);
    const [soon] = (await rows()).filter((r) => !earlier.has(r.id));
    const { sequelize, writeLock } = herald.server.ctx;
    await writeLock.run(({ transaction }) =>
      sequelize.query('UPDATE attachments SET expires_at = 0 WHERE id = :id', {
        replacements: { id: soon.id },
        transaction,
      }),
    );
    await herald.console.ok('POST', '/maintenance/prune');
    expect(storedFiles()).not.toContain(soon.id);
    expect((await rows()).map((r) => r.id)).not.toContain(soon.id);
  });

  it('removes what a stop mid-send left behind once it is an hour old, and nothing newer', async () => {
    const { attachments } = herald.server.ctx;
    const dir = join(herald.dataDir, 'attachments');
    mkdirSync(join(dir, '.staging'), { recursive: true });
    const hourAgo = new Date(Date.now() - 2 * 3_600_000);
    const leftovers = [join(dir, 'L'.repeat(24)), join(dir, '.staging', 'half-uploaded')];
    const fresh = join(dir, 'F'.repeat(24));
    for (const path of [...leftovers, fresh]) writeFileSync(path, 'x');
    for (const path of leftovers) utimesSync(path, hourAgo, hourAgo);
    await attachments.prune();
    expect(leftovers.filter((path) => existsSync(path))).toEqual([]);
    expect(existsSync(fresh)).toBe(true);
    rmSync(fresh);
  });

  describe('refusals store nothing', () => {
    const nothingStored = async (
      run: () => Promise<{ status: number; body: { code: number; msg: string } }>,
    ) => {
      const rowsBefore = (await rows()).length;
      const filesBefore = storedFiles().length;
      const answer = await run();
      expect((await rows()).length).toBe(rowsBefore);
      expect(storedFiles().length).toBe(filesBefore);
      await herald.waitFor(() => staged().length === 0);
      return answer;
    };

    it('refuses a file over maxFileMb with 413 naming the limit', async () => {
      await herald.console.ok('PUT', '/settings', { attachments: { maxFileMb: 1 } });
      const big = Buffer.alloc(1024 * 1024 + 10, 7);
      const res = await nothingStored(() =>
        postForm(
          '/api/v2/message/send',
          form({ token: v2Token, title: 'big' }, [['files[]', big, 'big.bin']]),
        ),
      );
      expect(res.status).toBe(413);
      expect(res.body.msg).toContain('1 MB');
    });

    it('refuses more files than maxFiles with 413', async () => {
      await herald.console.ok('PUT', '/settings', { attachments: { maxFiles: 2 } });
      const res = await nothingStored(() =>
        postForm(
          '/api/v2/message/send',
          form({ token: v2Token, title: 'many' }, [
            ['files[]', PNG, 'a.png'],
            ['files[]', PNG, 'b.png'],
            ['files[]', PNG, 'c.png'],
          ]),
        ),
      );
      expect(res.status).toBe(413);
      expect(res.body.msg).toContain('at most 2');
    });

    it('refuses a send that would pass maxTotalMb with 413', async () => {
      await herald.console.ok('PUT', '/settings', { attachments: { maxTotalMb: 1 } });
      // Under maxFileMb (15), over the 1 MB all files may take together.
      const almost = Buffer.alloc(1024 * 1024 + 1, 1);
      const res = await nothingStored(() =>
        postForm(
          '/api/v2/message/send',
          form({ token: v2Token, title: 'total' }, [['files[]', almost, 'a.bin']]),
        ),
      );
      expect(res.status).toBe(413);
      expect(res.body.msg).toContain('1 MB in all');
    });

    it('refuses a file whose bytes contradict its declared type with 415', async () => {
      await herald.console.ok('PUT', '/settings', { allowPrivateAddresses: true });
      const res = await nothingStored(() =>
        herald.sendV2({
          token: v2Token,
          title: 'typed',
          attachments: [{ url: `${filesUrl}/page.html`, mime: 'image/png' }],
        }),
      );
      expect(res.status).toBe(415);
      expect(res.body.msg).toContain('not image/png');
    });

    it('refuses a URL on a private address unless the settings allow it', async () => {
      const res = await nothingStored(() =>
        herald.sendV2({
          token: v2Token,
          title: 'ssrf',
          attachments: [{ url: `${filesUrl}/pixel` }],
        }),
      );
      expect(res.status).toBe(400);
      expect(res.body.msg).toContain('allowPrivateAddresses');
      expect(delivered.find((d) => d.title === 'ssrf')).toBeUndefined();
    });

    it('answers 400 to a multipart body without payload_json, with bad JSON in it, or cut short', async () => {
      const none = await nothingStored(() =>
        postForm('/api/v2/message/send', form(undefined, [['files[]', PNG, 'a.png']])),
      );
      expect(none.status).toBe(400);
      expect(none.body.msg).toContain('payload_json');
      const bad = await nothingStored(() =>
        postForm('/api/v1/message/send', form('{not json', [['files[]', PNG, 'a.png']])),
      );
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('payload_json is not valid JSON');
      const cut = await nothingStored(
        () =>
          new Promise((resolve, reject) => {
            const boundary = 'cut-boundary';
            const req = request(`${herald.url}/api/v2/message/send`, {
              method: 'POST',
              headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
            });
            req.on('response', (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
            });
            req.on('error', reject);
            // The file's part starts and the body ends: no closing boundary.
            req.end(
              `--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="a.png"\r\n` +
                'Content-Type: image/png\r\n\r\npartial bytes',
            );
          }),
      );
      expect(cut.status).toBe(400);
      expect(cut.body.msg).toContain('multipart');
    });
  });
});
