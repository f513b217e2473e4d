import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage } from '../../../server/db/models';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/**
 * Issue 41 §2: a placeholder typo is still delivered as the contract requires, but the V2 and
 * hook answers say so in `data.warnings` (only when there are any), the send log keeps them
 * with the send, and saving a schedule that would leave a marker unfilled says so too.
 */
describe('placeholder warnings', () => {
  let herald: TestHerald;
  let hostedId: number;
  let token: string;
  let templateId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    hostedId = (await herald.createChannel('hosted')).id;
    const made = await herald.createTemplate(
      {
        name: 'Disk alert',
        text: 'Disk on {{host}} at {{percent}}% ({{region}}) {{hots}}',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'percent', label: 'Percent', default: '90' },
          { key: 'region', label: 'Region' },
        ],
      },
      textInstances([hostedId]),
    );
    token = made.token;
    templateId = made.template.id;
  });
  afterAll(async () => {
    await herald.close(true);
  });

  const content = async (title: string) =>
    (await herald.waitFor(async () => HostedMessage.findOne({ where: { title } }))).content;

  it('delivers a send with typos as written, and names each key in data.warnings', async () => {
    const res = await herald.sendV2({
      token,
      title: 'typo',
      placeholders: { hots: 'db-2', percent: 97 },
    });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(200);
    // (hostMessageUrl depends on the instance's public-link setting: not this test's concern.)
    expect(res.body.data).toMatchObject({ token, count: 1 });
    expect(res.body.data.warnings).toEqual([
      'placeholder "hots" is not declared by template "Disk alert" (it declares: host, percent, region), so its value is not used',
      'placeholder "host" has no value and no default, so {{host}} stays in the message as written',
      'placeholder "region" has no value and no default, so {{region}} stays in the message as written',
      '{{hots}} in template "Disk alert" is not a declared placeholder, so it stays in the message as written',
    ]);
    // Delivered all the same, markers as written: the contract's rules 4 and 5.
    expect(await content('typo')).toBe('Disk on {{host}} at 97% ({{region}}) {{hots}}');
  });

  it('answers {token, count} without warnings when every marker is filled', async () => {
    const clean = await herald.createTemplate(
      {
        text: 'Disk on {{host}} at {{percent}}%',
        placeholders: [
          { key: 'host', label: 'H' },
          { key: 'percent', label: 'P', default: '90' },
        ],
      },
      textInstances([hostedId]),
    );
    const res = await herald.sendV2({
      token: clean.token,
      title: 'clean',
      placeholders: { host: 'db-1' },
    });
    // The contract's answer, and nothing more than the share link (when the instance has one).
    const { hostMessageUrl: _link, ...answer } = res.body.data;
    expect(answer).toEqual({ token: clean.token, count: 1 });
  });

  it('keeps the warnings with the send: the log list and detail show them', async () => {
    const res = await herald.sendV2({
      token,
      title: 'logged typo',
      placeholders: { host: 'db-1', region: 'eu' },
    });
    expect(res.body.data.warnings).toEqual([
      '{{hots}} in template "Disk alert" is not a declared placeholder, so it stays in the message as written',
    ]);
    const page = await herald.console.ok('GET', '/logs?q=logged');
    const send = page.items.find((s: { title: string }) => s.title === 'logged typo');
    const expected = [
      {
        kind: 'markerNotDeclared',
        key: 'hots',
        message: res.body.data.warnings[0],
      },
    ];
    expect(send.warnings).toEqual(expected);
    expect((await herald.console.ok('GET', `/logs/${send.id}`)).warnings).toEqual(expected);

    const clean = await herald.createTemplate({ text: 'ok' }, textInstances([hostedId]));
    await herald.sendV2({ token: clean.token, title: 'no warnings here' });
    const none = (await herald.console.ok('GET', '/logs?q=warnings')).items[0];
    expect(none.title).toBe('no warnings here');
    expect(none.warnings).toEqual([]);
  });

  it('replays the warnings with an Idempotency-Key, and keeps them on a deduplicated send', async () => {
    const body = { token, title: 'replayed', placeholders: { host: 'h', region: 'r', typo: 'x' } };
    const first = await herald.sendV2(body, { 'Idempotency-Key': 'warn-1' });
    const again = await herald.sendV2(body, { 'Idempotency-Key': 'warn-1' });
    expect(first.body.data.warnings).toHaveLength(2);
    expect(again.body).toEqual(first.body);

    const opened = await herald.sendV2({ ...body, title: 'dedup', dedupKey: 'disk' });
    const suppressed = await herald.sendV2({ ...body, title: 'dedup 2', dedupKey: 'disk' });
    expect(opened.body.data.deduplicated).toBe(false);
    expect(suppressed.body.data).toMatchObject({ deduplicated: true, count: 0 });
    expect(suppressed.body.data.warnings).toEqual(opened.body.data.warnings);
  });

  it('a hook answers the warnings of the placeholders its payload left unfilled', async () => {
    const res = await herald.post(`/api/hooks/generic/${token}`, {
      title: 'from a hook',
      host: 'web-1',
      unrelated: 'not a placeholder: presets fill many keys, so it is no warning',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.warnings).toEqual([
      'placeholder "region" has no value and no default, so {{region}} stays in the message as written',
      '{{hots}} in template "Disk alert" is not a declared placeholder, so it stays in the message as written',
    ]);
  });

  it('V1 has no placeholders: its answer never carries warnings', async () => {
    const { token: taskToken } = await herald.createTask('v1 task', textInstances([hostedId]));
    const res = await herald.sendV1({ token: taskToken, title: 'v1', text: 'literal {{host}}' });
    expect(res.body.data.status).toBe('sent');
    expect(res.body.data).not.toHaveProperty('warnings');
  });

  it('saving a schedule whose placeholders would stay unfilled answers the warnings', async () => {
    const created = await herald.console.ok('POST', '/schedules', {
      name: 'nightly disk',
      templateId,
      cron: '0 9 * * *',
      timezone: 'UTC',
      title: 'Nightly',
      placeholders: { host: 'db-1', hots: 'typo' },
    });
    expect(created.warnings).toEqual([
      {
        kind: 'notDeclared',
        key: 'hots',
        message:
          'placeholder "hots" is not declared by template "Disk alert" (it declares: host, percent, region), so its value is not used',
      },
      {
        kind: 'noValue',
        key: 'region',
        message:
          'placeholder "region" has no value and no default, so {{region}} stays in the message as written',
      },
      {
        kind: 'markerNotDeclared',
        key: 'hots',
        message:
          '{{hots}} in template "Disk alert" is not a declared placeholder, so it stays in the message as written',
      },
    ]);
    // Saved all the same.
    expect((await herald.console.ok('GET', `/schedules/${created.id}`)).name).toBe('nightly disk');

    // Fixing the values leaves only the template's own typo.
    const updated = await herald.console.ok('PUT', `/schedules/${created.id}`, {
      placeholders: { host: 'db-1', region: 'eu' },
    });
    expect(updated.warnings.map((w: { kind: string }) => w.kind)).toEqual(['markerNotDeclared']);

    // A template with nothing to warn about: no `warnings` at all.
    const clean = await herald.createTemplate(
      { text: '{{host}}', placeholders: [{ key: 'host', label: 'H', default: 'any' }] },
      textInstances([hostedId]),
    );
    const fine = await herald.console.ok('PATCH', `/schedules/${created.id}`, {
      templateId: clean.template.id,
      placeholders: {},
    });
    expect(fine).not.toHaveProperty('warnings');
    // A task schedule sends its own content: nothing to fill, nothing to warn about.
    const { task } = await herald.createTask('scheduled task', textInstances([hostedId]));
    const taskSchedule = await herald.console.ok('POST', '/schedules', {
      name: 'task one',
      taskId: task.id,
      cron: '0 9 * * *',
      timezone: 'UTC',
      title: 'T',
      text: 'literal {{host}}',
    });
    expect(taskSchedule).not.toHaveProperty('warnings');
  });
});
