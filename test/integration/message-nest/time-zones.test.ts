import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heraldArgs } from '../../helpers/herald-bin';
import { runNodeToExit, type ProcessResult } from '../../helpers/run-to-exit';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { buildSqliteMessageNest, messageNestRows, type Row } from './mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * Message Nest stores no time zone: its cron messages ran in its process's zone (Asia/Shanghai
 * in its Docker image). Imported into a Herald whose machine runs in UTC, a 09:00 job must
 * still run at 09:00 Shanghai time, 01:00 UTC, not at 09:00 UTC (17:00 in Shanghai).
 */
const cron = (id: string, name: string, spec: string): Row => ({
  id,
  name,
  task_id: 'TK1234567890',
  cron: spec,
  title: name,
  content: 'report',
  url: '',
  enable: 1,
  created_by: 'admin',
  modified_by: '',
  // As Message Nest's SQLite driver writes its time: in its process's zone, with the offset.
  created_on: '2026-07-21 10:00:00 +0800 CST',
  modified_on: '2026-07-21 10:00:00 +0800 CST',
});

async function messageNestWithMorningJob(file: string) {
  await buildSqliteMessageNest(file, {
    rows: {
      ...messageNestRows(),
      cron_messages: [
        cron('CM0000000001', 'Morning report', '0 9 * * *'),
        cron('CM0000000002', 'Berlin digest', 'CRON_TZ=Europe/Berlin 0 18 * * *'),
      ],
    },
  });
}

/** "09:00": the wall-clock time of an instant in a zone. */
const wallClock = (iso: string, zone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));

const DAY_MS = 24 * 60 * 60 * 1000;

/** The next run is the coming one: within a day from now. */
function expectComingRun(iso: string) {
  const at = new Date(iso).getTime();
  expect(at).toBeGreaterThan(Date.now());
  expect(at - Date.now()).toBeLessThanOrEqual(DAY_MS);
}

async function schedulesIn(herald: TestHerald): Promise<Record<string, any>> {
  const { items } = await herald.console.ok('GET', '/schedules');
  return Object.fromEntries(items.map((s: any) => [s.name, s]));
}

/** `herald import-message-nest …` as its own process, on a machine whose zone is UTC. */
function runCli(args: string[]): Promise<ProcessResult> {
  return runNodeToExit(heraldArgs(['import-message-nest', ...args]), {
    cwd: ROOT,
    env: { ...process.env, TZ: 'UTC', HERALD_SECRET_KEY: '', HERALD_SECRET_KEY_FILE: '' },
  });
}

// The command line writes a data folder's SQLite file; the console part below runs on both.
describe.skipIf(onPostgres())('npm run import:message-nest: schedules keep their zone', () => {
  let work: string;
  let mnFile: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mn-zone-cli-'));
    mnFile = join(work, 'database.db');
    await messageNestWithMorningJob(mnFile);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('gives a schedule Message Nest’s default zone, so 09:00 runs at 01:00 UTC, and says why', async () => {
    const dataDir = join(work, 'data-default');
    const r = await runCli([mnFile, '--data-dir', dataDir]);
    expect(r.stderr).not.toMatch(/Import failed/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /\nSchedule time zones:\n {2}- CM0000000001 "Morning report": Asia\/Shanghai, Message Nest's default zone \(it stores none of its own\): give --time-zone if it ran in another\n {2}- CM0000000002 "Berlin digest": Europe\/Berlin, named in its Message Nest expression \(CRON_TZ=\)\n/,
    );
    // Message Nest's timestamps were written at +08:00, as Asia/Shanghai: nothing to warn of.
    expect(r.stdout).not.toMatch(/Message Nest wrote its times at/);

    const herald = await startTestHerald({ dataDir });
    try {
      const byName = await schedulesIn(herald);
      expect(byName['Morning report']).toMatchObject({
        cron: '0 9 * * *',
        timezone: 'Asia/Shanghai',
      });
      const next = byName['Morning report'].nextRunAt as string;
      expect(next).toMatch(/T01:00:00\.000Z$/);
      expectComingRun(next);
      expect(byName['Berlin digest']).toMatchObject({
        cron: '0 18 * * *',
        timezone: 'Europe/Berlin',
      });
      expect(wallClock(byName['Berlin digest'].nextRunAt, 'Europe/Berlin')).toBe('18:00');
    } finally {
      await herald.close(true);
    }
  }, 120_000);

  it('--time-zone gives another zone (by its canonical name) and warns that Message Nest’s times disagree', async () => {
    const dataDir = join(work, 'data-berlin');
    const r = await runCli([mnFile, '--data-dir', dataDir, '--time-zone', 'europe/berlin']);
    expect(r.stderr).not.toMatch(/Import failed/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /\n {2}- CM0000000001 "Morning report": Europe\/Berlin, given with --time-zone\n/,
    );
    expect(r.stdout).toMatch(
      /Message Nest wrote its times at UTC\+08:00 \(message_\w+ \w+\), but Europe\/Berlin \(the zone asked for\) was UTC\+0[12]:00 then/,
    );

    const herald = await startTestHerald({ dataDir });
    try {
      const morning = (await schedulesIn(herald))['Morning report'];
      expect(morning.timezone).toBe('Europe/Berlin');
      expect(wallClock(morning.nextRunAt, 'Europe/Berlin')).toBe('09:00');
      // 07:00 or 08:00 UTC, as daylight-saving time has it: not 01:00, not 09:00.
      expect(morning.nextRunAt).toMatch(/T0[78]:00:00\.000Z$/);
      expectComingRun(morning.nextRunAt);
    } finally {
      await herald.close(true);
    }
  }, 120_000);

  it('refuses an unknown zone before reading or writing anything', async () => {
    const dataDir = join(work, 'data-refused');
    const before = readFileSync(mnFile);
    const r = await runCli([mnFile, '--data-dir', dataDir, '--time-zone', 'Mars/Olympus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^time zone "Mars\/Olympus" is not a known IANA time zone: give the zone Message Nest ran in by its name, such as "Asia\/Shanghai"/,
    );
    expect(r.stderr).toMatch(/--time-zone {2}the IANA zone Message Nest ran in/);
    expect(r.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
    expect(readFileSync(mnFile).equals(before)).toBe(true);
    // ICU would read CST as America/Chicago; a Message Nest user means China Standard Time.
    const abbreviation = await runCli([mnFile, '--data-dir', dataDir, '--time-zone', 'CST']);
    expect(abbreviation.code).toBe(2);
    expect(abbreviation.stderr).toMatch(/^time zone "CST" is an abbreviation/);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);
});

describe('Settings → Import: schedules keep their zone', () => {
  let work: string;
  let mnBytes: Buffer;
  const heralds: TestHerald[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mn-zone-console-'));
    const file = join(work, 'database.db');
    await messageNestWithMorningJob(file);
    mnBytes = readFileSync(file);
  });
  afterAll(async () => {
    for (const h of heralds) await h.close(true);
    rmSync(work, { recursive: true, force: true });
  });

  /** A Herald of its own (in this process, whose zone is the machine's: UTC here). */
  async function freshHerald() {
    const herald = await startTestHerald();
    heralds.push(herald);
    return herald;
  }

  const upload = async (herald: TestHerald, query: string) => {
    const res = await fetch(`${herald.url}/api/console/import/message-nest${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', Cookie: herald.console.cookie! },
      body: mnBytes,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('without a zone, Message Nest’s default: 09:00 runs at 01:00 UTC, and the report says why', async () => {
    const herald = await freshHerald();
    const r = await upload(herald, '');
    expect(r.status).toBe(200);
    expect(r.body.data.scheduleZones).toEqual([
      { id: 'CM0000000001', name: 'Morning report', timeZone: 'Asia/Shanghai', source: 'default' },
      { id: 'CM0000000002', name: 'Berlin digest', timeZone: 'Europe/Berlin', source: 'cron' },
    ]);
    const morning = (await schedulesIn(herald))['Morning report'];
    expect(morning.timezone).toBe('Asia/Shanghai');
    expect(morning.nextRunAt).toMatch(/T01:00:00\.000Z$/);
    expectComingRun(morning.nextRunAt);
  });

  it('with timeZone, that zone', async () => {
    const herald = await freshHerald();
    const r = await upload(herald, '?timeZone=Europe/Berlin');
    expect(r.status).toBe(200);
    expect(r.body.data.scheduleZones[0]).toEqual({
      id: 'CM0000000001',
      name: 'Morning report',
      timeZone: 'Europe/Berlin',
      source: 'option',
    });
    expect(r.body.data.notes.join('\n')).toMatch(/Message Nest wrote its times at UTC\+08:00/);
    const morning = (await schedulesIn(herald))['Morning report'];
    expect(morning.timezone).toBe('Europe/Berlin');
    expect(wallClock(morning.nextRunAt, 'Europe/Berlin')).toBe('09:00');
  });

  it('refuses an unknown zone with a 400 that says what to give, and imports nothing', async () => {
    const herald = await freshHerald();
    const r = await upload(herald, '?timeZone=GMT%2B8');
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(/time zone "GMT\+8" is not a known IANA time zone/);
    expect((await herald.console.ok('GET', '/schedules')).items).toEqual([]);
    expect((await herald.console.ok('GET', '/tasks')).items).toEqual([]);
  });
});
