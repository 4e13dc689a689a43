// Renders the measurements of `pnpm bench:http`: markdown for RESULTS.md (or last-partial.md) and
// aligned text tables for stdout.
import { CONTENDERS, EXACTNESS, FLOODGATE, LOAD, REDIS_CLIENT, SCENARIOS, SLICE_SECONDS } from './config.mjs';

const int = (n) => Math.round(n).toLocaleString('en-US');
const fixed = (n, digits) => (n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits));
const ms = (us) => (us / 1000).toFixed(2);
const signed = (n) => (n === undefined ? '—' : `${n >= 0 ? '+' : ''}${n.toFixed(1)}`);
const SCRIPTS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/**
 * Adds to every contender's run the ratio to the bare slices it was paired with, and its node CPU
 * over theirs. A group's bare row (role 'bare') pools all of the bracket's bare slices.
 */
export function relate(runs) {
  for (const run of runs) {
    if (run.role !== 'contender' || run.result === undefined) continue;
    run.bareRps = run.bareResult.rps;
    run.ratio = run.result.rps / run.bareRps;
    run.nodeUsAdded = run.result.nodeUs - run.bareResult.nodeUs;
  }
  return runs;
}

const DETAIL_HEADERS = [
  'contender',
  'req/s',
  '× bare',
  'p50 ms',
  'p99 ms',
  'node µs/req',
  'node µs − bare',
  'redis µs/req',
  'cmds/req',
  'scripts/req',
  'script µs/call',
  'Σ cmd µs/req',
  'non-2xx',
  'socket errors',
];

function detailRow(run) {
  const r = run.result;
  const label = run.role === 'contender' ? run.name : `${run.name} (all its slices)`;
  if (r === undefined) return [label, 'FAILED', ...DETAIL_HEADERS.slice(2).map(() => '')];
  return [
    label,
    int(r.rps),
    run.ratio === undefined
      ? ''
      : `${fixed(run.ratio, 2)} (${fixed(Math.min(...run.ratios), 2)}–${fixed(Math.max(...run.ratios), 2)})`,
    ms(r.p50),
    ms(r.p99),
    fixed(r.nodeUs, 1),
    run.role === 'contender' ? signed(run.nodeUsAdded) : '',
    fixed(r.redisUs, 1),
    fixed(r.cmdsPerReq, 2),
    fixed(r.scriptsPerReq, 2),
    fixed(r.scriptUsecPerCall, 2),
    fixed(r.usecPerReq, 2),
    int(r.non2xx),
    int(r.socketErrors),
  ];
}

const SUMMARY_HEADERS = (scenarios) => [
  'contender',
  ...scenarios.map((s) => `${s} × bare`),
  ...scenarios.map((s) => `node µs added, ${s}`),
  ...scenarios.map((s) => `redis µs/req, ${s}`),
  `script µs/call (${scenarios.join(' / ')})`,
];

function summaryRows(runs, scenarios) {
  const names = [...new Set(runs.filter((run) => run.role === 'contender').map((run) => run.name))];
  return names.map((name) => {
    const of = (scenario) =>
      runs.find((run) => run.name === name && run.scenario === scenario && run.role === 'contender');
    const cells = (fn) => scenarios.map((scenario) => fn(of(scenario)));
    const scriptCall = scenarios.map((scenario) => of(scenario)?.result?.scriptUsecPerCall);
    return [
      name,
      ...cells((run) => (run?.result === undefined ? (run ? 'FAILED' : '') : fixed(run.ratio, 2))),
      ...cells((run) => (run?.result === undefined ? '' : signed(run.nodeUsAdded))),
      ...cells((run) => fixed(run?.result?.redisUs, 1)),
      scriptCall.every((value) => value === undefined) ? '—' : scriptCall.map((value) => fixed(value, 1)).join(' / '),
    ];
  });
}

/** A markdown table; the first `textColumns` columns align left, the rest (numbers) right. */
function markdownTable(headers, rows, textColumns = 1) {
  const align = headers.map((_, i) => (i < textColumns ? '---' : '---:'));
  return [headers, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** Columns padded to their widest cell, for the terminal. */
export function textTable(headers, rows) {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(headers), ...rows.map((row) => line(row.map(String)))].join('\n');
}

/** Commands Redis ran per request for one run: `evalsha 1.00×16.2 µs, incr 1.00×0.4 µs`. */
function commandMix(run) {
  const { commands, requests } = run.result;
  return Object.entries(commands)
    .sort(
      ([a, x], [b, y]) => Number(SCRIPTS.has(b)) - Number(SCRIPTS.has(a)) || y.calls - x.calls || a.localeCompare(b),
    )
    .map(([name, stat]) => `${name} ${(stat.calls / requests).toFixed(2)}×${(stat.usec / stat.calls).toFixed(2)} µs`)
    .join(', ');
}

function exactnessTable(rows) {
  const lines = rows.map((row) => [
    row.name,
    int(row.total),
    int(EXACTNESS.keys * EXACTNESS.limit),
    row.failure ? 'FAILED' : int(row.over),
    row.failure ? '' : int(row.under),
    row.failure
      ? ''
      : Object.entries(row.statuses)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', '),
  ]);
  const headers = [
    'contender (2 instances)',
    'admitted',
    'limit × keys',
    'over-admitted',
    'keys under limit',
    'statuses',
  ];
  return markdownTable(headers, lines);
}

/** The stdout tables: the summary, then every scenario's details. */
export function renderText(runs, scenarios, exactnessRows) {
  // The summary's columns folded per measure: `0.61 / 0.63 / 0.58` for allowed / hot / denied.
  const wide = summaryRows(runs, scenarios);
  const n = scenarios.length;
  const fold = (row, from) => row.slice(from, from + n).join(' / ');
  const compact = wide.map((row) => [row[0], fold(row, 1), fold(row, 1 + n), fold(row, 1 + 2 * n), row[1 + 3 * n]]);
  const which = scenarios.join(' / ');
  const headers = ['contender', `× bare (${which})`, 'node µs added', 'redis µs/req', 'script µs/call'];
  const parts = [textTable(headers, compact)];
  for (const scenario of scenarios) {
    const rows = runs.filter((run) => run.scenario === scenario).map(detailRow);
    parts.push(`${SCENARIOS[scenario].label}\n${textTable(DETAIL_HEADERS, rows)}`);
  }
  if (exactnessRows.length > 0) {
    const rows = exactnessRows.map((row) => [
      row.name,
      row.failure ?? `admitted ${row.total}, over-admitted ${row.over}`,
    ]);
    parts.push(`exactness\n${textTable(['contender (2 instances)', 'result'], rows)}`);
  }
  return parts.join('\n\n');
}

function setupNotes() {
  const variants = FLOODGATE.variants.map(
    (v) =>
      `\`${v.id}\` (${v.store === 'redis' ? 'RedisStore' : 'MemoryStore'}, ${v.layers} layer${v.layers > 1 ? 's' : ''})`,
  );
  const options =
    Object.keys(FLOODGATE.options).length === 0 ? 'default options' : `options ${JSON.stringify(FLOODGATE.options)}`;
  const peers = [...CONTENDERS.values()]
    .filter((c) => c.kind === 'peer')
    .map((c) => `\`${c.name}\`${c.note ? ` (${c.note})` : ''}`);
  return `- Floodgate: \`floodgate-<adapter>-<variant>\`, variants ${variants.join(', ')}; ${options}. One layer is one
  \`fixedWindow\` rule keyed \`byHeader('${FLOODGATE.header}')\`; two layers are \`layered({ ip, user })\`, the user's id being that
  header and the ip layer's limit (${int(FLOODGATE.ipLimit)}) never reached. RedisStore prefix \`${FLOODGATE.redisPrefix}\`.
- Peers, as their READMEs show, keyed by the same header: ${peers.join(', ')}.
  express-rate-limit with \`standardHeaders: 'draft-8', legacyHeaders: false\`, hono-rate-limiter with \`standardHeaders: 'draft-6'\`
  (their README examples); rate-limiter-flexible as its README's Express middleware (\`consume(key).then(next).catch(429)\`).
- Every Redis contender (Floodgate and peers alike) has one ioredis client, connected before the server listens:
  \`${JSON.stringify(REDIS_CLIENT)}\`.
- Bare: the framework alone answering \`GET /\` with \`ok\`, as every contender does behind its limiter.`;
}

/** The whole HTTP section of RESULTS.md (or of last-partial.md). */
export function renderMarkdown({ runs, scenarios, exactnessRows, meta, failures }) {
  const scenarioTables = scenarios.map((scenario) => {
    const { label, limit, windowMs } = SCENARIOS[scenario];
    const rows = runs.filter((run) => run.scenario === scenario).map(detailRow);
    return `### ${label}\n\nLimit ${int(limit)} per key per ${windowMs / 60_000} min.\n\n${markdownTable(DETAIL_HEADERS, rows)}`;
  });
  const redisRuns = runs.filter((run) => run.result?.commands !== undefined && run.role === 'contender');
  const mix = markdownTable(
    ['contender', 'scenario', 'commands per request × µs per call (INFO commandstats)'],
    redisRuns.map((run) => [run.name, run.scenario, commandMix(run) || '(none)']),
    3,
  );
  const exact =
    exactnessRows.length === 0
      ? 'Not run (no Floodgate Redis contender selected).'
      : `Two processes of each contender share one RedisStore prefix (\`${FLOODGATE.redisPrefix}\`) with no proxy in front, with
\`failMode: 'closed'\` (a decision Redis does not make within the deadline is a 503, not a local admission);
${int(EXACTNESS.requests)} requests over ${EXACTNESS.keys} keys (limit ${EXACTNESS.limit} per key per hour), alternating between the
two and ${EXACTNESS.inflight} in flight (Node's fetch). Over-admitted = Σ over keys of max(0, admitted − ${EXACTNESS.limit}); it must be 0.

${exactnessTable(exactnessRows)}`;
  const failed =
    failures.length === 0
      ? ''
      : `\n**This run failed:**\n\n${failures.map((f) => `- ${f.split('\n')[0]}`).join('\n')}\n`;
  return `## HTTP adapters against the peers: \`pnpm bench:http\`
${failed}
Command: \`${meta.command}\` (turbo build of packages/*, then \`node bench/http/run.mjs\`).
Date: ${meta.date}; the run took ${meta.elapsed}.
Load: \`wrk -t${LOAD.threads} -c${LOAD.connections} -d${SLICE_SECONDS}s --latency -s bench/http/load.lua\`, ${LOAD.seconds} slices per contender after ${LOAD.warmupSeconds} s of the same as warm-up, each paired with a slice of the bare framework, on loopback.
Versions: ${meta.versions}.
Machine: ${meta.machine}.

How to read it: each contender is its own node process, started, warmed, measured and stopped in turn, while
wrk and a private redis-server share the same ${meta.cores} cores, so absolute req/s are this machine's, this minute's.
Compare the ratios: **× bare** is the contender's throughput over its bare framework's, measured in alternating
slices (contender, bare, bare, contender, …; the bare framework is a second process, idle while the contender is
loaded), so a drift of the machine falls on both alike; in brackets, the lowest and highest ratio of a single pair,
which shows how noisy the run was. The bare row pools every bare slice of the scenario.
**node µs/req** is the server process' CPU time (user + system, all threads, from /proc/<pid>/stat) over the measured
interval divided by the requests wrk completed; **− bare** subtracts the paired bare slices' figure, so it is what the limiter
adds per request. **redis µs/req** is redis-server's CPU per request, the same way. From \`INFO commandstats\` (reset
just before the measured interval): **cmds/req** counts every command Redis ran per request, including those a script
ran (Redis counts those too); **scripts/req** the EVAL/EVALSHA/FCALL calls; **script µs/call** their \`usec_per_call\`; and
**Σ cmd µs/req** the sum of \`usec\` of all commands per request, where a script's time already includes the commands it
ran, listed again on their own, so it overstates; the per-command table below shows the mix. Allowed scenarios must get
only 2xx, denied only 429 (the key is exhausted before the warm-up): a run that does not fails the benchmark.
Socket errors are wrk's connect/read/write/timeout counts. Latency is wrk's, client side, p50 and p99.

${setupNotes()}

### Summary

${markdownTable(SUMMARY_HEADERS(scenarios), summaryRows(runs, scenarios))}

${scenarioTables.join('\n\n')}

### What Redis ran

${mix}

### Exactness across two instances

${exact}
`;
}
