// Latency at fixed offered rates: below saturation, where batching has nothing to batch, what a
// request costs a client in time. Each contender alone, one hot key under a limit it never reaches,
// `hey -z <s>s -c 20 -q <rate/20>` (Debian's hey: 20 workers, each held to its share of the rate).
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

/**
 * The offered rates: BENCH_RATES (comma-separated requests/s, or 'none'), else 1,000/s doubling
 * up to half of the bare framework's measured maximum (`bareMax`), at most five rates.
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

/** Runs hey at `rate` for `seconds`; resolves with { rate, achieved, p50, p99 (ms), statuses }. */
export async function hey(port, rate, seconds) {
  const args = ['-z', `${seconds}s`, '-c', String(WORKERS), '-q', String(rate / WORKERS)];
  args.push('-H', `x-api-key: ${HOT_KEY}`, `http://127.0.0.1:${port}/`);
  const { code, output } = await runCollecting('hey', args);
  const percentile = (p) => Number(new RegExp(`^\\s+${p}% in ([\\d.]+) secs`, 'm').exec(output)?.[1]) * 1000;
  const achieved = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const statuses = {};
  for (const match of output.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)) statuses[match[1]] = Number(match[2]);
  const result = { rate, achieved, p50: percentile(50), p99: percentile(99), statuses };
  if (code !== 0 || !Number.isFinite(result.p99) || !Number.isFinite(achieved)) {
    throw new Error(`hey ${args.join(' ')} failed (${code}):\n${output.slice(-2000)}`);
  }
  return result;
}

/** The markdown table: one row per contender, p50 / p99 in ms per rate. */
export function renderLatency(rows, rates, seconds) {
  if (rows.length === 0) return '';
  const head = `| contender | ${rates.map((rate) => `${rate}/s p50 / p99`).join(' | ')} |`;
  const rule = `|---|${rates.map(() => '---:').join('|')}|`;
  const body = rows.map((row) => {
    const cells = rates.map((rate) => {
      const cell = row.byRate.get(rate);
      if (cell === undefined) return 'failed';
      return `${cell.p50.toFixed(2)} / ${cell.p99.toFixed(2)}${cell.achieved < rate * 0.95 ? ` (${Math.round(cell.achieved)}/s)` : ''}`;
    });
    return `| ${row.name} | ${cells.join(' | ')} |`;
  });
  return [
    '',
    `### Latency at fixed offered rates (ms)`,
    '',
    `Each contender alone, one hot key under a limit it never reaches; \`hey -z ${seconds}s -c ${WORKERS} -q <rate/${WORKERS}>\` after a ${LOAD.warmupSeconds} s warm-up. A rate in brackets is what was achieved when it fell short of the offered rate by more than 5 %.`,
    '',
    head,
    rule,
    ...body,
    '',
  ].join('\n');
}
