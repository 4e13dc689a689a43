// Sums every vitest JSON report the workspace's test runs wrote and prints one line:
// "N passed, N failed". Exits 1 when a test failed or when a package's report is missing.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

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
    if (file.status === 'failed' && !tests.some((test) => test.status === 'failed')) {
      failed += 1;
      console.error(`${workspace}: ${file.name} failed before its tests ran: ${(file.message ?? '').split('\n')[0]}`);
    }
  }
}
for (const workspace of missing) console.error(`no test report from ${workspace} (its test run did not finish)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
