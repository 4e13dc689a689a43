// pnpm bench:adaptive — a server whose handler waits on a dependency of fixed capacity, driven at
// 1x, 2x and 4x that capacity, behind each protection in turn (one child process per row).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { closeAgent, drive } from './load.mjs';
import { summarise } from './stats.mjs';

const WORKERS = 10;
const SERVICE_MS = 200;
const CAPACITY = (WORKERS * 1000) / SERVICE_MS;
const TIMEOUT_MS = 2000;
const quick = process.argv.includes('--quick');
const PHASES = quick
  ? [
      { name: '1x', x: 1, ms: 4000 },
      { name: '4x', x: 4, ms: 6000 },
      { name: 'after 4x', x: 0.5, ms: 4000 },
    ]
  : [
      { name: '1x', x: 1, ms: 6000 },
      { name: '2x', x: 2, ms: 10000 },
      { name: 'after 2x', x: 0.5, ms: 6000 },
      { name: '4x', x: 4, ms: 10000 },
      { name: 'after 4x', x: 0.5, ms: 6000 },
    ];
const ROWS = [
  'unprotected',
  `concurrency:${WORKERS}`,
  `concurrency:${WORKERS / 2}`,
  `concurrency:${WORKERS * 2}`,
  'under-pressure',
  'adaptive:gradient2',
  'adaptive:vegas',
];
const only = process.argv
  .find((arg) => arg.startsWith('--rows='))
  ?.slice(7)
  .split(',');

async function startServer(mode) {
  const child = spawn(
    process.execPath,
    [new URL('./server.mjs', import.meta.url).pathname, mode, WORKERS, SERVICE_MS],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [chunk] = await once(child.stdout, 'data');
  return { port: Number(String(chunk).trim()), child };
}

async function pollLimits(port, trace, started) {
  const poll = setInterval(() => {
    fetch(`http://127.0.0.1:${port}/stats`)
      .then((r) => r.json())
      .then((s) => trace.push({ at: performance.now() - started, ...s }))
      .catch(() => {});
  }, 100);
  return () => clearInterval(poll);
}

const rows = [];
for (const mode of ROWS.filter((row) => only === undefined || only.includes(row))) {
  const { port, child } = await startServer(mode);
  // Warm-up, not reported: JIT, the client's socket pool, the estimator's first baseline.
  await drive(port, { rate: CAPACITY / 2, ms: 3000, timeoutMs: TIMEOUT_MS });
  const phases = [];
  for (const phase of PHASES) {
    const trace = [];
    const stop = await pollLimits(port, trace, performance.now());
    const results = await drive(port, { rate: phase.x * CAPACITY, ms: phase.ms, timeoutMs: TIMEOUT_MS });
    stop();
    phases.push({ ...phase, results, trace });
  }
  child.kill();
  rows.push(summarise(mode, phases, CAPACITY));
  console.log(JSON.stringify(rows.at(-1)));
}
closeAgent();

const command = `pnpm bench:adaptive${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
const machine = `${cpus().length} x ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${loadavg()
  .map((l) => l.toFixed(1))
  .join(' ')} at the end`;
const report = (await import('./report.mjs')).render({
  rows,
  command,
  machine,
  WORKERS,
  SERVICE_MS,
  CAPACITY,
  TIMEOUT_MS,
  PHASES,
});
writeFileSync(new URL(quick ? './RESULTS-quick.md' : '../RESULTS-adaptive.md', import.meta.url), report);
console.log(report);
