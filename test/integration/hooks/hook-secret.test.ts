import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/** A template's hook secret through the console API: write-only, sealed at rest (docs/hooks.md). */
describe('template hookSecret', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald();
  });
  afterAll(() => herald.close(true));

  const rawColumn = async (id: number) => {
    const [row] = await herald.server.ctx.sequelize.query<{ hook_secret: string | null }>(
      'SELECT hook_secret FROM templates WHERE id = :id',
      { replacements: { id }, type: QueryTypes.SELECT },
    );
    return row.hook_secret;
  };

  it('create() seals the secret and every answer masks it', async () => {
    const { template } = await herald.createTemplate(
      { text: 'x', hookSecret: 'It’s a Secret to Everybody' },
      [],
    );

    expect(template.hookSecret).toBe('******');
    const stored = await rawColumn(template.id);
    expect(stored).toMatch(/^enc:v1:/);
    expect(stored).not.toContain('Secret');
    expect(herald.server.ctx.secrets.open(stored!)).toBe('It’s a Secret to Everybody');
    const detail = await herald.console.ok('GET', `/templates/${template.id}`);
    expect(detail.hookSecret).toBe('******');
    const list = await herald.console.ok('GET', '/templates');
    const listed = list.items.find((t: { id: number }) => t.id === template.id);
    expect(listed.hookSecret).toBe('******');
    expect(JSON.stringify(list)).not.toContain('Secret to Everybody');
  });

  it('update() keeps the secret for the mask or a left-out field, replaces and clears it', async () => {
    const { template } = await herald.createTemplate({ text: 'x' }, []);
    expect(template.hookSecret).toBe('');
    expect(await rawColumn(template.id)).toBeNull();

    await herald.console.ok('PUT', `/templates/${template.id}`, { hookSecret: 'first' });
    const sealed = await rawColumn(template.id);
    expect(herald.server.ctx.secrets.open(sealed!)).toBe('first');

    await herald.console.ok('PUT', `/templates/${template.id}`, {
      name: template.name,
      hookSecret: '******',
    });
    await herald.console.ok('PUT', `/templates/${template.id}`, { description: 'kept' });
    expect(await rawColumn(template.id)).toBe(sealed);

    await herald.console.ok('PUT', `/templates/${template.id}`, { hookSecret: 'second' });
    expect(herald.server.ctx.secrets.open((await rawColumn(template.id))!)).toBe('second');

    const cleared = await herald.console.ok('PUT', `/templates/${template.id}`, { hookSecret: '' });
    expect(cleared.hookSecret).toBe('');
    expect(await rawColumn(template.id)).toBeNull();
    await herald.console.ok('PUT', `/templates/${template.id}`, { hookSecret: 'third' });
    await herald.console.ok('PUT', `/templates/${template.id}`, { hookSecret: null });
    expect(await rawColumn(template.id)).toBeNull();
  });

  it('refuses a secret that is not a string', async () => {
    const { template } = await herald.createTemplate({ text: 'x' }, []);
    const r = await herald.console.put(`/templates/${template.id}`, { hookSecret: 42 });
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(/hookSecret: must be a string/);
  });
});
