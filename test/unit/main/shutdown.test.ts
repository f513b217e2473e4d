import { describe, expect, it } from 'vitest';

import { createShutdown, type ShutdownStep } from '../../../main/shutdown';

function recorder() {
  const calls: string[] = [];
  const step = (
    name: string,
    run?: () => Promise<void> | void,
    timeoutMs = 1_000,
  ): ShutdownStep => ({
    name,
    timeoutMs,
    run: async () => {
      calls.push(`${name}:start`);
      await run?.();
      calls.push(`${name}:end`);
    },
  });
  return { calls, step };
}

describe('createShutdown', () => {
  it('run() runs the steps one after another in the given order', async () => {
    const { calls, step } = recorder();
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    const shutdown = createShutdown([step('http', slow), step('deliveries', slow), step('db')]);

    const results = await shutdown.run();

    expect(calls).toEqual([
      'http:start',
      'http:end',
      'deliveries:start',
      'deliveries:end',
      'db:start',
      'db:end',
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['done', 'done', 'done']);
  });

  it('run() abandons a step that hangs past its timeout and still runs the rest', async () => {
    const { calls, step } = recorder();
    const hang = () => new Promise<void>(() => undefined);
    const shutdown = createShutdown([step('http'), step('deliveries', hang, 30), step('db')]);

    const results = await shutdown.run();

    expect(results).toEqual([
      { name: 'http', outcome: 'done' },
      { name: 'deliveries', outcome: 'timed-out', error: 'gave up after 30 ms' },
      { name: 'db', outcome: 'done' },
    ]);
    expect(calls).toContain('db:end');
    expect(calls).not.toContain('deliveries:end');
  });

  it('run() records a failing step (sync or async) and goes on', async () => {
    const shutdown = createShutdown([
      {
        name: 'sync',
        timeoutMs: 100,
        run: () => {
          throw new Error('boom');
        },
      },
      {
        name: 'async',
        timeoutMs: 100,
        run: async () => {
          throw new Error('later');
        },
      },
      { name: 'db', timeoutMs: 100, run: () => undefined },
    ]);

    const results = await shutdown.run();

    expect(results).toEqual([
      { name: 'sync', outcome: 'failed', error: 'boom' },
      { name: 'async', outcome: 'failed', error: 'later' },
      { name: 'db', outcome: 'done' },
    ]);
  });

  it('run() runs the steps once however often quit is requested', async () => {
    let runs = 0;
    const shutdown = createShutdown([{ name: 'db', timeoutMs: 100, run: () => void runs++ }]);

    expect(shutdown.started).toBe(false);
    const first = shutdown.run();
    const second = shutdown.run();
    expect(shutdown.started).toBe(true);
    await Promise.all([first, second, shutdown.run()]);

    expect(second).toBe(first);
    expect(runs).toBe(1);
  });

  it('run() reads the steps when it starts, so steps added after creation are included', async () => {
    const list: ShutdownStep[] = [];
    const shutdown = createShutdown(() => list);
    list.push({ name: 'server', timeoutMs: 100, run: () => undefined });

    const results = await shutdown.run();

    expect(results.map((r) => r.name)).toEqual(['server']);
  });

  it('run() logs done steps as info and the others as warnings', async () => {
    const lines: string[] = [];
    const log = {
      info: (m: string) => lines.push(`info ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
    };
    const shutdown = createShutdown(
      [
        { name: 'ok', timeoutMs: 100, run: () => undefined },
        { name: 'bad', timeoutMs: 100, run: () => Promise.reject(new Error('x')) },
      ],
      log,
    );

    await shutdown.run();

    expect(lines).toEqual(['info shutdown: ok done', 'warn shutdown: bad failed: x']);
  });
});
