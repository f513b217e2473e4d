import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/** Sends over HTTP into a Herald on PostgreSQL, whatever HERALD_TEST_DATABASE says. */
describe('sending on PostgreSQL', () => {
  let herald: TestHerald;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald({ postgres: true });
    expect(herald.server.ctx.sequelize.getDialect()).toBe('postgres');
    const inbox = await herald.createChannel('hosted', {}, 'inbox');
    ({ token } = await herald.createTemplate(
      { text: '{{body}}', placeholders: [{ key: 'body', label: 'Body' }] },
      [{ channelId: inbox.id, contentType: 'text' }],
    ));
  });
  afterAll(() => herald.close(true));

  it('accepts, delivers and logs a V2 send', async () => {
    const r = await herald.sendV2({
      token,
      title: 'on postgres',
      placeholders: { body: '数据库 ok' },
    });
    expect(r.status).toBe(200);
    const sent = await herald.waitFor(async () => {
      const { items } = await herald.console.ok('GET', '/logs?q=数据库');
      return items.find((s: { status: string }) => s.status === 'sent');
    });
    expect(sent.title).toBe('on postgres');
  });

  it('stores a lone surrogate as U+FFFD instead of answering 500 (json refuses its escape)', async () => {
    const r = await herald.sendV2({
      token,
      title: '\ud800 cut pair',
      placeholders: { body: 'x\udc00' },
    });
    expect(r.status).toBe(200);
    const stored = await Send.findOne({ where: { title: '\ufffd cut pair' } });
    expect(stored?.text).toBe('x\ufffd');
    // In a key as well: the request is stored as the caller sent it.
    const keyed = await herald.sendV2({
      token,
      title: 'surrogate key',
      placeholders: { body: 'y', '\udfff': true },
    });
    expect(keyed.status).toBe(200);
    const request = (await Send.findOne({ where: { title: 'surrogate key' } }))?.request;
    expect(JSON.stringify(request)).toContain('\ufffd');
  });
});
