// Prints one closing line, "Tests: N passed, N failed, N skipped", from Vitest's JSON report,
// so CI logs (and tools that read the last line) see the totals of every project at once.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`test-summary: cannot read ${file}: ${err.message}`);
  process.exit(1);
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
const skippedNames = [];
for (const suite of report.testResults ?? []) {
  for (const t of suite.assertionResults ?? []) {
    if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') skippedNames.push(t.fullName);
  }
}
if (skippedNames.length > 0) {
  console.log(`Skipped:\n${skippedNames.map((n) => `  - ${n}`).join('\n')}`);
  console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
}
process.exit(report.numFailedTests > 0 || report.success === false ? 1 : 0);
