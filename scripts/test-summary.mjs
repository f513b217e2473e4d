// Prints one closing line, "Tests: N passed, N failed, N skipped", from Vitest's JSON reports
// (one per run: SQLite, then PostgreSQL), so CI logs (and tools that read the last line) see the
// totals of every project and both databases at once.
import { readFileSync } from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['test-results/vitest.json'];
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
