// Sums every vitest JSON report the workspace's test runs wrote and prints one line:
// "N passed, N failed". Above it, each failed test by file and name with the first lines of its
// error: CI keeps only the end of the log, where a failure high up in the runner's output is lost.
// Exits 1 when a test failed or when a package's report is missing.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const workspaces = [
  ...['packages', 'examples'].flatMap((dir) =>
    existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((name) => join(dir, name)) : [],
  ),
  'test',
];

let passed = 0;
let failed = 0;
const missing = [];
const failures = [];
const MESSAGE_LINES = 4;
const firstLines = (text, n) =>
  stripVTControlCharacters(text ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/node_modules|<anonymous>/.test(line))
    .slice(0, n)
    .map((line) => `    ${line.slice(0, 300)}`);
for (const workspace of workspaces) {
  const manifest = join(root, workspace, 'package.json');
  if (!existsSync(manifest)) continue;
  const { scripts = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
  if (!scripts.test) continue;
  const report = join(root, workspace, '.reports', 'vitest.json');
  if (!existsSync(report)) {
    missing.push(workspace);
    continue;
  }
  const { numPassedTests, numFailedTests, testResults = [] } = JSON.parse(readFileSync(report, 'utf8'));
  passed += numPassedTests;
  failed += numFailedTests;
  // A file that failed before any of its tests ran (an import or a beforeAll that threw) reports
  // its tests as skipped: count it as one failure, or it would pass unnoticed.
  for (const file of testResults) {
    const tests = file.assertionResults ?? [];
    const where = `${workspace}: ${file.name.slice(join(root, workspace).length + 1)}`;
    for (const test of tests) {
      if (test.status !== 'failed') continue;
      failures.push(`FAILED ${where} > ${test.fullName}`, ...firstLines(test.failureMessages?.[0], MESSAGE_LINES));
    }
    if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) {
      failed += 1;
      failures.push(`FAILED ${where} before its tests ran`, ...firstLines(file.message, MESSAGE_LINES));
    }
  }
}
for (const workspace of missing) failures.push(`no test report from ${workspace} (its test run did not finish)`);
for (const line of failures) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
