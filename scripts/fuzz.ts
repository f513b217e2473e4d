/**
 * The full fuzz run of both send APIs and the console API against a real Herald on loopback
 * (fresh data folder, real HTTP): generated requests with anything in every field, header,
 * path and method. Prints the answers by status, every kind of failure with a shrunk input,
 * and one summary line; exits 1 when any answer was a 5xx or not the envelope, or the server
 * died.
 *
 *   npm run fuzz [-- --runs 100000 --seed 42 --shrink 10 --only v1,v2,console]
 *
 * --runs is the total, shared evenly by the APIs named in --only (all three by default).
 */
import { parseArgs } from 'node:util';

import {
  describeRequest,
  FuzzHarness,
  runFuzz,
  serverCause,
  shrinkFailure,
  type TargetName,
} from '../test/fuzz/fuzz-harness';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3000' },
    seed: { type: 'string' },
    shrink: { type: 'string', default: '10' },
    only: { type: 'string', default: 'v1,v2,console' },
  },
});
const names = ['v1', 'v2', 'console'] as const;
const only = values.only.split(',').map((s) => s.trim());
const chosen = names.filter((n) => only.includes(n));
if (chosen.length === 0 || only.some((n) => !(names as readonly string[]).includes(n))) {
  console.log('--only takes a comma list of v1, v2 and console');
  process.exit(2);
}
const total = Number(values.runs);
if (!Number.isInteger(total) || total < chosen.length) {
  console.log(`--runs must be a whole number of at least ${chosen.length}`);
  process.exit(2);
}
const seed = values.seed === undefined ? undefined : Number(values.seed);
const share = Math.floor(total / chosen.length);
const runs: Record<TargetName, number> = { v1: 0, v2: 0, console: 0 };
chosen.forEach((n, i) => {
  runs[n] = i === chosen.length - 1 ? total - share * (chosen.length - 1) : share;
});

const out = (line = '') => process.stdout.write(`${line}\n`);
const started = Date.now();
const harness = await FuzzHarness.start();
out(
  `fuzzing ${harness.url}: ${total} runs (v1 ${runs.v1}, v2 ${runs.v2}, console ${runs.console})`,
);

let lastShown = 0;
const summary = await runFuzz(harness, {
  runs,
  seed,
  onProgress(target, done, of) {
    const step = Math.max(1, Math.floor(of / 10));
    if (done % step === 0 || done === of) {
      const now = Date.now();
      if (now - lastShown > 2000 || done === of) {
        out(`  ${target}: ${done}/${of}`);
        lastShown = now;
      }
    }
  },
});

out(`\nseed ${summary.seed}`);
out('answers by status (* = refused by Node’s HTTP parser before Herald saw the request):');
for (const target of chosen) {
  const counts = Object.entries(summary.statuses[target])
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  out(`  ${target.padEnd(7)} ${counts}`);
}

const failing = summary.failures.reduce((n, g) => n + g.count, 0);
if (summary.failures.length > 0) {
  out(`\nfailures, by kind (${summary.failures.length}):`);
  const toShrink = Number(values.shrink);
  for (const [i, group] of summary.failures.entries()) {
    out(`\n${group.count}× ${group.signature}`);
    const cause = serverCause(group.outcome);
    if (cause) out(`  server logged: ${cause}`);
    if (i < toShrink) {
      const small = await shrinkFailure(harness, group, summary.seed);
      out(`  shrunk input:\n  ${describeRequest(group.target, small)}`);
    } else {
      out(`  first input:\n  ${describeRequest(group.target, group.example)}`);
    }
  }
}

const alive = summary.alive && (await harness.alive());
await harness.close();
const seconds = Math.round((Date.now() - started) / 1000);
const fives = Object.values(summary.statuses)
  .flatMap((counts) => Object.entries(counts))
  .filter(([status]) => status.startsWith('5'))
  .reduce((n, [, c]) => n + c, 0);
out(
  `\nfuzz: ${summary.runs.v1 + summary.runs.v2 + summary.runs.console} runs in ${seconds} s, ` +
    `${failing} failing (${fives} 5xx, ${summary.failures.length} kinds), ` +
    `server ${alive ? 'alive' : 'DEAD'} at the end, seed ${summary.seed}`,
);
process.exit(failing === 0 && alive ? 0 : 1);
