import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { buildSqliteMessageNest, smsRows } from './mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

// Message Nest keeps an SMS template code on each instance; every SMS channel comes over whole,
// with its instances' most used code as its default and each other code on its instance.
describe('Message Nest Aliyun SMS channels import whole', () => {
  let work: string;
  let herald: TestHerald;
  let report: any;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mn-sms-'));
    const file = join(work, 'database.db');
    await buildSqliteMessageNest(file, { rows: smsRows() });
    herald = await startTestHerald();
    const res = await fetch(`${herald.url}/api/console/import/message-nest`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', Cookie: herald.console.cookie },
      body: readFileSync(file),
    });
    report = ((await res.json()) as any).data;
  });

  afterAll(async () => {
    await herald.close(true);
    rmSync(work, { recursive: true, force: true });
  });

  const channelNamed = async (name: string) =>
    (await herald.console.ok('GET', '/channels')).items.find((c: any) => c.name === name);

  /** Each imported instance of the task: its channel's name, phone number and own code. */
  async function instances(): Promise<Array<[string, string, string | null]>> {
    const task = (await herald.console.ok('GET', '/tasks')).items.find(
      (t: any) => t.legacyId === 'TKsms0000001',
    );
    const detail = await herald.console.ok('GET', `/tasks/${task.id}`);
    return detail.instances.map((i: any) => [i.channel.name, i.recipient, i.templateCode]);
  }

  it('creates every SMS channel, and skips only the instance no code can send', () => {
    expect(report.counts.channels).toEqual({ created: 5, alreadyImported: 0, skipped: 0 });
    expect(report.counts.instances).toEqual({ created: 7, alreadyImported: 0, skipped: 1 });
    expect(report.skipped).toEqual([
      {
        kind: 'instances',
        table: 'message_send_tasks_ins',
        id: 'INsmsbare001',
        name: 'task TKsms0000001',
        reason: 'it names no SMS template code, nor does any other instance of its channel',
      },
    ]);
  });

  it('a channel with no instances comes over as it is, without a template code', async () => {
    const channel = await channelNamed('SMS no instances');
    expect(channel.type).toBe('aliyun_sms');
    expect(channel.config).not.toHaveProperty('templateCode');
    expect(channel.config).toMatchObject({ signName: 'Nest', accessKeySecret: '******' });
  });

  it('each channel keeps its most used code; an instance with another code keeps its own', async () => {
    expect((await channelNamed('SMS one code')).config.templateCode).toBe('SMS_1');
    expect((await channelNamed('SMS several codes')).config.templateCode).toBe('SMS_3');
    expect((await channelNamed('SMS one without a code')).config.templateCode).toBe('SMS_4');
    expect((await channelNamed('SMS no code at all')).config).not.toHaveProperty('templateCode');
    expect((await instances()).sort()).toEqual(
      [
        ['SMS one code', '13800000001', null],
        ['SMS one code', '13800000002', null],
        ['SMS several codes', '13800000003', 'SMS_2'],
        ['SMS several codes', '13800000004', null],
        ['SMS several codes', '13800000005', null],
        ['SMS one without a code', '13800000006', null],
        ['SMS one without a code', '13800000007', null],
      ].sort(),
    );
  });

  it('notes the instance that had no code and now sends with its channel’s', () => {
    expect(report.notes).toContainEqual(
      "Instance INsmsgap0002 of task TKsms0000001: it names no SMS template code, so it sends with its channel's (SMS_4).",
    );
  });
});
