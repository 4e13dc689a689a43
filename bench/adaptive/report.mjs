// The Markdown written to bench/RESULTS-adaptive.md.
import { SETTLE_S } from './stats.mjs';

const pct = (v) => `${(100 * v).toFixed(v < 0.1 && v > 0 ? 2 : 1)} %`;
const ms = (v) => (Number.isNaN(v) ? '—' : `${Math.round(v)}`);
const secs = (v) => (v === undefined ? 'never' : `${v}`);

export function render({ rows, command, machine, WORKERS, SERVICE_MS, CAPACITY, TIMEOUT_MS, PHASES }) {
  const lines = [
    '# Adaptive concurrency: `pnpm bench:adaptive`',
    '',
    `Command: \`${command}\`  `,
    `Machine: ${machine}  `,
    `Date: ${new Date().toISOString()}`,
    '',
    `A Fastify 5 server (a child process per row) whose handler waits on a dependency of ${WORKERS} workers taking ${SERVICE_MS} ms each (FIFO queue in front): capacity ${CAPACITY} requests/s. An open-loop client (its own process) first warms up at 0.5x for 3 s (not reported), then sends evenly at 1x, 2x and 4x that rate, dropping to 0.5x after each overload, in this order: ${PHASES.map((p) => `${p.name} ${p.ms / 1000} s`).join(', ')}. A request not answered within ${TIMEOUT_MS} ms counts as timed out (the client gave up; the server still does its work).`,
    '',
    `- goodput: 200 responses per second, as a share of the capacity. For 2x and 4x, goodput, p50/p99 (of 200 responses, ms), shed and timed out are measured after the first ${SETTLE_S} s of the phase (the convergence allowance); the whole phase otherwise.`,
    '- shed: 503 (or 429) answers; timed out: no answer within the client timeout.',
    '- converge: seconds until the adaptive limit stays within 25 % of where it settled (the median of the phase\'s last 3 s), polled every 100 ms; then, after the slash, the first second of the overload phase from which every later second has goodput >= 90 % of capacity and p99 <= 2x the 1x p99 ("never": the last second fails).',
    '- recover: the load drops to 0.5x; the first second after the overload from which every later second has < 1 % non-200 answers.',
    '- limit: the adaptive limit polled every 100 ms (min–max over the same window).',
    '',
    '| row | phase | goodput | p50 ms | p99 ms | shed | timed out | converge s | recover s | limit |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    for (const p of row.phases) {
      const limit =
        p.limitMin === undefined ? '' : p.limitMin === p.limitMax ? `${p.limitMin}` : `${p.limitMin}–${p.limitMax}`;
      lines.push(
        `| ${row.mode} | ${p.name} | ${pct(p.goodputShare)} | ${ms(p.p50)} | ${ms(p.p99)} | ${pct(p.shed)} | ${pct(p.timedOut)} | ${p.x > 1 ? `${p.limitConvergeS === undefined ? '' : `${p.limitConvergeS} / `}${secs(p.convergeS)}` : ''} | ${p.recoverS !== undefined || p.name.startsWith('after') ? secs(p.recoverS) : ''} | ${limit} |`,
      );
    }
  }
  lines.push('');
  return `${lines.join('\n')}\n`;
}
