import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { HOOK_PRESETS } from '../../../../../contract';
import { AppError } from '../../../../../server/lib/errors';
import {
  clip,
  dottedLeaves,
  HOOK_VALUE_CHARS,
} from '../../../../../server/features/hooks/hook-preset';
import { HOOK_PRESET_TABLE } from '../../../../../server/features/hooks/presets';

/* eslint-disable @typescript-eslint/no-explicit-any -- fixtures are loose JSON */

const FIXTURES = join(__dirname, '../../../../fixtures/hooks');
const fixture = (name: string): any => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const { alertmanager, grafana, github, generic } = HOOK_PRESET_TABLE;
const kuma = HOOK_PRESET_TABLE['uptime-kuma'];

describe('the preset table', () => {
  it('has one JSON preset per contract name', () => {
    expect(Object.keys(HOOK_PRESET_TABLE).sort()).toEqual([...HOOK_PRESETS].sort());
    for (const p of Object.values(HOOK_PRESET_TABLE)) expect(p.contentType).toBe('json');
  });
});

describe('dottedLeaves()', () => {
  it('names every leaf by its dotted path, arrays by index, and leaves out nulls', () => {
    expect(
      dottedLeaves({ deploy: { env: 'prod', items: ['a', 'b'], ok: true, n: 3, gone: null } }),
    ).toEqual({
      'deploy.env': 'prod',
      'deploy.items.0': 'a',
      'deploy.items.1': 'b',
      'deploy.ok': 'true',
      'deploy.n': '3',
    });
  });

  it('skips paths a marker cannot name and control characters never get through', () => {
    expect(dottedLeaves({ 'a b': 'x', ok: 'bell\u0007' })).toEqual({ ok: 'bell\uFFFD' });
  });

  it('clip() cuts long values with an ellipsis instead of refusing them', () => {
    const cut = clip('x'.repeat(HOOK_VALUE_CHARS + 5));
    expect(cut).toHaveLength(HOOK_VALUE_CHARS);
    expect(cut.endsWith('…')).toBe(true);
    // A surrogate pair is never split.
    const emoji = clip(`${'x'.repeat(8)}😀tail`, 10);
    expect(emoji).toBe(`${'x'.repeat(8)}…`);
  });
});

describe('alertmanager preset', () => {
  it('toMessage() reads the documented payload', () => {
    const m = alertmanager.toMessage(fixture('alertmanager.json'), {});
    expect(m.title).toBe('[FIRING:1] ProbeFailure');
    expect(m.placeholders).toMatchObject({
      status: 'firing',
      alertname: 'ProbeFailure',
      severity: 'critical',
      summary: 'BlackBox Probe Failure: https://server.example.org',
      description:
        'Instance https://server.example.org has been down for over 5m. Job: http_checks',
      instance: 'https://server.example.org',
      count: '1',
      firing: '1',
      resolved: '0',
      url: 'http://prometheus.example.org:9093',
      alerts:
        '[firing] ProbeFailure on https://server.example.org: BlackBox Probe Failure: https://server.example.org',
      // Dotted paths beside the names.
      'commonLabels.job': 'http_checks',
      'alerts.0.fingerprint': '1a30ba71cca2921f',
    });
    expect(m.dedupKey).toBe('{}/{severity="critical"}:{alertname="ProbeFailure"}:firing');
  });

  it('toMessage() counts the alerts of the group’s status, Alertmanager’s way', () => {
    const alert = (status: string, instance: string) => ({
      status,
      labels: { alertname: 'DiskFull', instance },
      annotations: { summary: `disk on ${instance}` },
    });
    const body = {
      version: '4',
      status: 'firing',
      groupKey: 'k',
      groupLabels: { alertname: 'DiskFull' },
      commonLabels: { alertname: 'DiskFull' },
      alerts: [alert('firing', 'db-1'), alert('firing', 'db-2'), alert('resolved', 'db-3')],
    };
    const m = alertmanager.toMessage(body, {});
    expect(m.title).toBe('[FIRING:2] DiskFull');
    expect(m.placeholders).toMatchObject({
      count: '3',
      firing: '2',
      resolved: '1',
      instance: 'db-1, db-2, db-3',
      summary: 'disk on db-1',
    });
    expect(m.placeholders.alerts.split('\n')).toEqual([
      '[firing] DiskFull on db-1: disk on db-1',
      '[firing] DiskFull on db-2: disk on db-2',
      '[resolved] DiskFull on db-3: disk on db-3',
    ]);
    expect(alertmanager.toMessage({ ...body, status: 'resolved' }, {}).title).toBe(
      '[RESOLVED:1] DiskFull',
    );
  });

  it('toMessage() refuses a body that is no notification', () => {
    expect(() => alertmanager.toMessage({ alerts: 'x' }, {})).toThrow(AppError);
    expect(() => alertmanager.toMessage([1], {})).toThrow(/Alertmanager's webhook notification/);
  });
});

describe('grafana preset', () => {
  it('toMessage() reads the documented payload and keeps Grafana’s title', () => {
    const m = grafana.toMessage(fixture('grafana.json'), {});
    expect(m.title).toBe('[FIRING:2] (blue)');
    expect(m.dedupKey).toBeUndefined();
    expect(m.placeholders).toMatchObject({
      status: 'firing',
      title: '[FIRING:2] (blue)',
      count: '2',
      url: 'https://play.grafana.org/',
      alertname: 'High memory usage, High CPU usage',
      severity: '',
      summary: 'This alert was triggered for zone us-1',
      'alerts.1.values.B': '44.23943737541908',
    });
    expect(m.placeholders.message).toMatch(/^\*\*Firing\*\*\n\nLabels:/);
  });

  it('toMessage() writes Alertmanager’s title when Grafana sends none', () => {
    const { title: _title, ...body } = fixture('grafana.json');
    expect(grafana.toMessage(body, {}).title).toBe('[FIRING:2] High memory usage, High CPU usage');
  });
});

describe('github preset', () => {
  const event = (name: string, file: string) =>
    github.toMessage(fixture(`github/${file}.json`), { 'x-github-event': name });

  it('push: who pushed what where, the compare link and the ref', () => {
    const m = event('push', 'push');
    expect(m.title).toBe(
      'Codertocat created branch master in Codertocat/Hello-World: Initial commit',
    );
    expect(m.placeholders).toMatchObject({
      event: 'push',
      repo: 'Codertocat/Hello-World',
      sender: 'Codertocat',
      action: '',
      ref: 'refs/heads/master',
      url: 'https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      summary: m.title,
      'head_commit.id': '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    });
    const pushed = github.toMessage(
      { ...fixture('github/push.json'), created: false },
      { 'x-github-event': 'push' },
    );
    expect(pushed.title).toBe(
      'Codertocat pushed 1 commit to master in Codertocat/Hello-World: Initial commit',
    );
    const deleted = github.toMessage(
      { ...fixture('github/push.json'), ref: 'refs/tags/v1', deleted: true },
      { 'x-github-event': 'push' },
    );
    expect(deleted.title).toBe('Codertocat deleted tag v1 in Codertocat/Hello-World');
  });

  it('pull_request, issues, release and workflow_run each get their line and link', () => {
    expect(event('pull_request', 'pull_request-opened')).toMatchObject({
      title:
        'Codertocat opened pull request #2 in Codertocat/Hello-World: Update the README with new information.',
      placeholders: {
        action: 'opened',
        ref: 'changes',
        url: 'https://github.com/Codertocat/Hello-World/pull/2',
      },
    });
    expect(event('issues', 'issues-opened')).toMatchObject({
      title:
        'Codertocat opened issue #1 in Codertocat/Hello-World: Spelling error in the README file',
      placeholders: { url: 'https://github.com/Codertocat/Hello-World/issues/1' },
    });
    expect(event('release', 'release-published')).toMatchObject({
      title: 'Codertocat published release 0.0.1 in Codertocat/Hello-World',
      placeholders: {
        ref: '0.0.1',
        url: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
      },
    });
    expect(event('workflow_run', 'workflow_run-completed')).toMatchObject({
      title: 'Workflow test completed (success) on master in octo-org/octo-repo',
      placeholders: { url: 'https://github.com/octo-org/octo-repo/actions/runs/289782451' },
    });
  });

  it('a merged pull request reads "merged", other events fall back to a plain line', () => {
    const body = fixture('github/pull_request-opened.json');
    body.action = 'closed';
    body.pull_request.merged = true;
    expect(github.toMessage(body, { 'x-github-event': 'pull_request' }).title).toMatch(
      /^Codertocat merged pull request #2 /,
    );
    const star = github.toMessage(
      { action: 'created', repository: { full_name: 'o/r' }, sender: { login: 'octocat' } },
      { 'x-github-event': 'star' },
    );
    expect(star.title).toBe('octocat created star in o/r');
  });

  it('ping sends nothing; an event without X-GitHub-Event is refused', () => {
    expect(event('ping', 'ping').skip).toMatch(/^ping from hook 109948940/);
    expect(() => github.toMessage({}, {})).toThrow(/X-GitHub-Event: is required/);
  });
});

describe('uptime-kuma preset', () => {
  it('toMessage() reads a down and an up heartbeat', () => {
    const down = kuma.toMessage(fixture('uptime-kuma-down.json'), {});
    expect(down.title).toBe('[Test] [🔴 Down] getaddrinfo ENOTFOUND test.com');
    expect(down.placeholders).toMatchObject({
      name: 'Test',
      status: 'down',
      msg: '[Test] [🔴 Down] getaddrinfo ENOTFOUND test.com',
      url: 'https://test.com',
      'heartbeat.msg': 'getaddrinfo ENOTFOUND test.com',
    });
    expect(kuma.toMessage(fixture('uptime-kuma-up.json'), {}).placeholders.status).toBe('up');
  });

  it('toMessage() takes the test notification, which has no heartbeat or monitor', () => {
    const m = kuma.toMessage(fixture('uptime-kuma-test.json'), {});
    expect(m.title).toBe('Herald Testing');
    expect(m.placeholders).toMatchObject({ name: '', status: '', msg: 'Herald Testing' });
    expect(() => kuma.toMessage({ heartbeat: {} }, {})).toThrow(/Uptime Kuma/);
  });
});

describe('generic preset', () => {
  it('toMessage() passes every leaf and takes a top-level title', () => {
    const m = generic.toMessage(fixture('generic.json'), {});
    expect(m.title).toBe('Deploy finished');
    expect(m.placeholders).toMatchObject({
      title: 'Deploy finished',
      'deploy.env': 'production',
      'deploy.items.1': 'worker',
    });
    expect(generic.toMessage({ no: 'title' }, {}).title).toBe('');
    expect(generic.toMessage([{ a: 1 }], {}).placeholders).toEqual({ '0.a': '1' });
    expect(() => generic.toMessage('text', {})).toThrow(/JSON object or array/);
  });
});
