/**
 * The full fuzz run of both send APIs and the console API against a real Herald on loopback
 * (fresh data folder, real HTTP): generated requests with anything in every field, header,
 * path and method. Prints the answers by status, every kind of failure with a shrunk input,
 * and one summary line; exits 1 when any answer was a 5xx or not the envelope, or the server
 * died.
 *
 *   npm run fuzz [-- --runs 100000 --seed 42 --shrink 10]
 *
 * --runs is the total, shared evenly by V1, V2 and the console.
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
  },
});
const total = Number(values.runs);
if (!Number.isInteger(total) || total < 3) {
  console.log('--runs must be a whole number of at least 3');
  process.exit(2);
}
const seed = values.seed === undefined ? undefined : Number(values.seed);
const third = Math.floor(total / 3);
const runs: Record<TargetName, number> = { v1: third, v2: third, console: total - 2 * third };

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
for (const target of Object.keys(summary.statuses) as TargetName[]) {
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
      out(`  shrunk input:\n  ${describeRequest(small)}`);
    } else {
      out(`  first input:\n  ${describeRequest(group.example)}`);
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
