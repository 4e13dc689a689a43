// Latency at fixed offered rates: below saturation, where batching has nothing to batch, what a
// request costs a client in time. One hot key under a limit it never reaches, `hey -z 2s -c 20
// -q <rate/20> -o csv` (Debian's hey: 20 workers, each held to its share of the rate), the
// contenders of a framework taking turns.
import { HOT_KEY, LOAD } from './config.mjs';
import { runCollecting } from './processes.mjs';

/** The contenders of the latency table, per framework: bare, Floodgate and the best-known peer. */
export const LATENCY_CONTENDERS = {
  express: [
    'express-bare',
    'floodgate-express-memory',
    'express-rate-limit-memory',
    'floodgate-express-redis',
    'express-rate-limit-redis',
  ],
  fastify: [
    'fastify-bare',
    'floodgate-fastify-memory',
    'fastify-rate-limit-memory',
    'floodgate-fastify-redis',
    'fastify-rate-limit-redis',
  ],
  hono: [
    'hono-bare',
    'floodgate-hono-memory',
    'hono-rate-limiter-memory',
    'floodgate-hono-redis',
    'hono-rate-limiter-redis',
  ],
};

const WORKERS = 20;

/** The latency of a rate is measured in turns of this many seconds (hey counts whole seconds). */
export const LATENCY_SLICE_SECONDS = 2;

/**
 * The offered rates: BENCH_RATES (comma-separated requests/s, or 'none'), else 1,000/s doubling
 * up to half of the bare framework's measured maximum (`bareMax`), at most five rates; a dash in
 * the table is a rate above half of that framework's maximum.
 */
export function offeredRates(bareMax) {
  const raw = process.env.BENCH_RATES?.trim();
  if (raw === 'none') return [];
  if (raw) {
    const rates = raw.split(',').map((part) => Number(part.trim()));
    for (const rate of rates) {
      if (!Number.isInteger(rate) || rate < WORKERS) {
        throw new Error(`BENCH_RATES must list whole requests/s of at least ${WORKERS}, got '${raw}'`);
      }
    }
    return rates;
  }
  const rates = [1000];
  const ceiling = bareMax === undefined ? 8000 : bareMax / 2;
  while (rates.length < 5 && rates.at(-1) * 2 <= ceiling) rates.push(rates.at(-1) * 2);
  return rates;
}

/**
 * One slice: hey at `rate` for `seconds`, every response's latency kept (`-o csv`, 0.1 ms steps).
 * Resolves with { latencies (ms), statuses, seconds }.
 */
export async function heySlice(port, rate, seconds) {
  const args = ['-z', `${seconds}s`, '-c', String(WORKERS), '-q', String(rate / WORKERS), '-o', 'csv'];
  args.push('-H', `x-api-key: ${HOT_KEY}`, `http://127.0.0.1:${port}/`);
  const { code, output } = await runCollecting('hey', args);
  const lines = output.split('\n');
  if (code !== 0 || !lines[0]?.startsWith('response-time,')) {
    throw new Error(`hey ${args.join(' ')} failed (${code}):\n${output.slice(-2000)}`);
  }
  const latencies = [];
  const statuses = {};
  for (let i = 1; i < lines.length; i++) {
    const fields = lines[i].split(',');
    if (fields.length < 7) continue;
    latencies.push(Number(fields[0]) * 1000);
    statuses[fields[6]] = (statuses[fields[6]] ?? 0) + 1;
  }
  if (latencies.length === 0) throw new Error(`hey ${args.join(' ')} got no response`);
  return { latencies, statuses, seconds };
}

/** A contender's slices at one rate, pooled: { rate, achieved, p50, p99 (ms), statuses }. */
export function pooled(rate, slices) {
  const all = slices.flatMap((slice) => slice.latencies).sort((a, b) => a - b);
  const at = (q) => all[Math.min(all.length - 1, Math.ceil(q * all.length) - 1)];
  const statuses = {};
  for (const slice of slices) {
    for (const [status, n] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  }
  const seconds = slices.reduce((sum, slice) => sum + slice.seconds, 0);
  return { rate, achieved: all.length / seconds, p50: at(0.5), p99: at(0.99), statuses };
}

/** The markdown table: one row per contender, p50 / p99 in ms per rate. */
export function renderLatency(rows, rates, seconds) {
  if (rows.length === 0) return '';
  const head = `| contender | ${rates.map((rate) => `${rate}/s p50 / p99`).join(' | ')} |`;
  const rule = `|---|${rates.map(() => '---:').join('|')}|`;
  const body = rows.map((row) => {
    const cells = rates.map((rate) => {
      const cell = row.byRate.get(rate);
      if (!row.rates.includes(rate)) return '—';
      if (cell === undefined) return 'failed';
      return `${cell.p50.toFixed(2)} / ${cell.p99.toFixed(2)}${cell.achieved < rate * 0.95 ? ` (${Math.round(cell.achieved)}/s)` : ''}${cell.failed > 0 ? `, ${cell.failed} not 2xx` : ''}`;
    });
    return `| ${row.name} | ${cells.join(' | ')} |`;
  });
  return [
    '',
    `### Latency at fixed offered rates (ms)`,
    '',
    `One hot key under a limit it never reaches; \`hey -z ${LATENCY_SLICE_SECONDS}s -c ${WORKERS} -q <rate/${WORKERS}> -o csv\` after a ${LOAD.warmupSeconds} s warm-up. The framework's contenders run side by side (idle but one) and take turns, ${seconds / LATENCY_SLICE_SECONDS} slices each per rate, in an order that rotates and reverses every round, so a drift of the machine falls on all of them; the percentiles are over every response of a contender's slices pooled (hey records 0.1 ms steps). A rate in brackets is what was achieved when it fell short of the offered rate by more than 5 %; responses other than 2xx are counted in the cell (latencies include them).`,
    '',
    head,
    rule,
    ...body,
    '',
  ].join('\n');
}
