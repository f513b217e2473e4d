import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { adapterFor } from '../../../server/channels/registry';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/**
 * Issue 43 §2: a send's files reach the adapter when the delivery thread delivers
 * (HERALD_DELIVERY_THREAD=on), on the first attempt and on the retry after a failure, as the
 * custom webhook's body shows its receiver. SQLite only: the thread runs beside better-sqlite3.
 */
describe.skipIf(process.env.HERALD_TEST_DATABASE === 'postgres')(
  'files on the delivery thread',
  () => {
    let herald: TestHerald;
    let peer: HttpPeer;
    let token: string;
    const bytes = Buffer.from('%PDF-1.4 not really\n');

    beforeAll(async () => {
      vi.stubEnv('HERALD_DELIVERY_THREAD', 'on');
      herald = await startTestHerald();
      peer = await startHttpPeer();
      const hook = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
      token = (await herald.createTemplate({ text: 'thread' }, textInstances([hook.id]))).token;
    });

    afterAll(async () => {
      await peer.close();
      await herald.close(true);
      vi.unstubAllEnvs();
    });

    it('hands the files to the adapter on the first try and on the retry', async () => {
      expect(herald.server.ctx.deliveryThread?.running).toBe(true);
      // The main thread's adapter is watched: the thread's own must be the one that sends.
      const mainSend = vi.spyOn(adapterFor(herald.server.ctx.registry, 'webhook')!, 'send');
      peer.script.push({ status: 503, body: 'busy' });
      const form = new FormData();
      form.set('payload_json', JSON.stringify({ token, title: 'via the thread' }));
      form.append('files[]', new Blob([bytes]), 'notes.pdf');
      const res = await fetch(`${herald.url}/api/v2/message/send`, { method: 'POST', body: form });
      expect(((await res.json()) as { code: number }).code).toBe(200);

      const [first, retry] = await peer.waitForRequests(2);
      for (const received of [first, retry]) {
        const files = (received.json as { attachments?: Array<Record<string, unknown>> })
          .attachments;
        expect(files).toHaveLength(1);
        expect(files![0]).toMatchObject({ name: 'notes.pdf', size: bytes.length });
        const served = await fetch(String(files![0].url));
        expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
      }
      expect(mainSend).not.toHaveBeenCalled();
    });
  },
);
