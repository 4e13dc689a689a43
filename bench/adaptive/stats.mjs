// Turns each phase's raw results into the figures of the table.

/** The overload phases are judged after this many seconds (the convergence target). */
export const SETTLE_S = 5;

function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Per second of sending: the results of the requests sent in it. */
function bySecond(results, ms) {
  const seconds = Array.from({ length: Math.ceil(ms / 1000) }, () => []);
  for (const r of results) seconds[Math.min(seconds.length - 1, Math.floor(r.at / 1000))].push(r);
  return seconds;
}

function figures(results, seconds) {
  const ok = results.filter((r) => r.status === 200);
  const shed = results.filter((r) => r.status === 503 || r.status === 429).length;
  const failed = results.filter((r) => r.status === 0).length;
  return {
    goodput: ok.length / seconds,
    p50: percentile(
      ok.map((r) => r.ms),
      50,
    ),
    p99: percentile(
      ok.map((r) => r.ms),
      99,
    ),
    shed: shed / results.length,
    timedOut: failed / results.length,
  };
}

/** The first second from which every later one passes `good`; undefined if the last one fails. */
function settledFrom(seconds, good) {
  let from;
  for (let i = seconds.length - 1; i >= 0; i--) {
    if (!good(seconds[i])) break;
    from = i;
  }
  return from;
}

export function summarise(mode, phases, capacity) {
  const base = phases[0];
  const baseP99 = figures(base.results, base.ms / 1000).p99;
  const summary = { mode, baseP99, phases: [] };
  for (const phase of phases) {
    const overload = phase.x > 1;
    const steady = overload ? phase.results.filter((r) => r.at >= SETTLE_S * 1000) : phase.results;
    const span = overload ? phase.ms / 1000 - SETTLE_S : phase.ms / 1000;
    const seconds = bySecond(phase.results, phase.ms);
    const row = { name: phase.name, x: phase.x, ...figures(steady, span) };
    row.goodputShare = row.goodput / capacity;
    if (overload) {
      row.convergeS = settledFrom(seconds, (s) => {
        const f = figures(s, 1);
        return f.goodput >= 0.9 * capacity && f.p99 <= 2 * baseP99;
      });
    } else if (phase.name.startsWith('after')) {
      row.recoverS = settledFrom(seconds, (s) => s.filter((r) => r.status !== 200).length < 0.01 * s.length);
    }
    if (overload) row.limitConvergeS = limitSettled(phase.trace);
    const limits = phase.trace.filter((t) => typeof t.limit === 'number' && (!overload || t.at >= SETTLE_S * 1000));
    if (limits.length > 0) {
      row.limitMin = Math.min(...limits.map((t) => t.limit));
      row.limitMax = Math.max(...limits.map((t) => t.limit));
    }
    summary.phases.push(row);
  }
  return summary;
}

/**
 * Seconds from the start of an overload phase until the adaptive limit stays within 25 % of where
 * it settled (the median of the phase's last 3 s); undefined without an adaptive limit.
 */
function limitSettled(trace) {
  const points = trace.filter((t) => typeof t.limit === 'number');
  if (points.length === 0) return undefined;
  const end = points.at(-1).at;
  const tail = points
    .filter((t) => t.at >= end - 3000)
    .map((t) => t.limit)
    .sort((a, b) => a - b);
  const settled = tail[Math.floor(tail.length / 2)];
  let from = points.length;
  for (let i = points.length - 1; i >= 0; i--) {
    if (Math.abs(points[i].limit - settled) > 0.25 * settled) break;
    from = i;
  }
  return from === 0 ? 0 : Math.ceil(points[from - 1].at / 100) / 10;
}
