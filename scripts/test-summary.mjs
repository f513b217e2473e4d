// Prints the wall time of each part of the run (with --timings, from scripts/run-tests.mjs), then
// one closing line, "Tests: N passed, N failed, N skipped", from Vitest's JSON reports (one per
// run: SQLite, then PostgreSQL), so CI logs (and tools that read the last line) see the totals of
// every project and both databases at once.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const timingsAt = args.indexOf('--timings');
const timingsFile = timingsAt >= 0 ? args.splice(timingsAt, 2)[1] : null;
const files = args.length > 0 ? args : ['test-results/vitest.json'];

/** "4 min 05 s", "52 s". */
const duration = (ms) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
};

/** The Vitest project a test file belongs to (vitest.config.ts `include`). */
const projectOf = (file) =>
  /\/test\/e2e\//.test(file) ? 'e2e' : /\/test\/renderer\//.test(file) ? 'renderer' : 'server';

/** Each project's wall time in a report: from its first file's start to its last file's end. */
function projectWallTimes(report) {
  const spans = new Map();
  for (const suite of report.testResults ?? []) {
    const project = projectOf(suite.name);
    const span = spans.get(project) ?? { start: Infinity, end: 0 };
    span.start = Math.min(span.start, suite.startTime);
    span.end = Math.max(span.end, suite.endTime);
    spans.set(project, span);
  }
  return [...spans].map(([project, span]) => ({ project, ms: span.end - span.start }));
}

if (timingsFile) {
  const timings = JSON.parse(readFileSync(timingsFile, 'utf8'));
  const lines = ['Wall time:'];
  for (const part of timings.parts) {
    lines.push(`  ${part.name.padEnd(40)} ${duration(part.ms)}`);
    if (!part.report) continue;
    try {
      for (const { project, ms } of projectWallTimes(
        JSON.parse(readFileSync(part.report, 'utf8')),
      )) {
        lines.push(`    ${project.padEnd(38)} ${duration(ms)}`);
      }
    } catch {
      // No report: Vitest failed before writing one; the totals below say so.
    }
  }
  lines.push(`  ${'npm test in all'.padEnd(40)} ${duration(timings.totalMs)}`);
  console.log(`\n${lines.join('\n')}`);
}
let passed = 0;
let failed = 0;
let skipped = 0;
let success = true;
const skippedNames = [];
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`test-summary: cannot read ${file}: ${err.message}`);
    process.exit(1);
  }
  const label = file.includes('postgres') ? ' (PostgreSQL)' : '';
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  if (report.success === false) success = false;
  for (const suite of report.testResults ?? []) {
    for (const t of suite.assertionResults ?? []) {
      if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') {
        skippedNames.push(`${t.fullName}${label}`);
      }
    }
  }
}
const totals = `Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`;
console.log(totals);
if (skippedNames.length > 0) {
  console.log(`Skipped:\n${skippedNames.map((n) => `  - ${n}`).join('\n')}`);
  console.log(totals);
}
process.exit(failed > 0 || !success ? 1 : 0);
