import { describe, expect, it } from 'vitest';

import { duplicates, expectAtLeastOnce, PATHS, runCrashScenario } from './crash-harness';

describe('a crash while deliveries are in flight', () => {
  it('resends only what was in flight, and webhook-id drops those repeats', async () => {
    // The peer holds every request a while, so many are in flight when the 40th attempt's
    // answer arrives and the process dies before recording it.
    const run = await runCrashScenario({
      point: 'during-delivery',
      at: 40,
      sends: 200,
      connections: 20,
      signed: true,
      peerDelayMs: 150,
    });
    expectAtLeastOnce(run, 'during-delivery');
    expect(run.answered.size).toBeGreaterThan(0);
    // At least the attempt that died before its record reached the peer twice.
    const repeats = duplicates(run);
    expect(repeats.length).toBeGreaterThan(0);

    // A receiver that keeps the webhook-ids it handled sees each delivery exactly once.
    expect(run.receipts.filter((r) => !r.webhookId)).toEqual([]);
    const byId = new Map<string, Set<string>>();
    for (const r of run.receipts)
      byId.set(r.webhookId!, (byId.get(r.webhookId!) ?? new Set()).add(r.key));
    // One id never covers two deliveries, and a repeat carries its first copy's id.
    expect([...byId.values()].filter((keys) => keys.size !== 1)).toEqual([]);
    expect(byId.size).toBe(run.final.deliveries.size);
    const installs = new Set<string>();
    for (const [id, keys] of byId) {
      const [key] = keys;
      const m = /^msg_(.+)_(\d+)$/.exec(id);
      expect(m, id).not.toBeNull();
      installs.add(m![1]);
      expect(Number(m![2])).toBe(run.final.deliveries.get(key)!.id);
    }
    expect(installs.size).toBe(1);
    for (const title of run.answered) {
      for (const path of PATHS) {
        const ids = run.receipts
          .filter((r) => r.key === `${path}|${title}`)
          .map((r) => r.webhookId);
        expect(new Set(ids).size).toBe(1);
      }
    }
  }, 60_000);
});
