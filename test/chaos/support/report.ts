import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { DecisionRecord } from './app.ts';
import type { Sample } from './load.ts';

/** What RESULTS.md shows for one scenario. */
export interface ScenarioSummary {
  scenario: string;
  sent: number;
  /** Count per HTTP status (0 = no answer within the driver's 15 s). */
  statuses: Record<string, number>;
  /** HTTP latency, ms. */
  p50: number;
  p99: number;
  max: number;
  /** Limiter decision latency inside the app, ms. */
  decisionP99: number;
  decisionMax: number;
  /** Decisions slower than the asserted bound (timeout + 50 ms). */
  overBound: number;
  /** Largest event-loop delay seen during the scenario, ms (machine noise). */
  loopDelayMax: number;
  /** Share of the limiter's decisions marked degraded. */
  degradedShare: number;
  notes: string;
}

const RESULTS_FILE = new URL('../RESULTS.md', import.meta.url);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Counts, latency percentiles (ms, at the HTTP response) and degraded share. */
export function summarize(
  scenario: string,
  samples: Sample[],
  decisions: DecisionRecord[],
  notes = '',
  loopDelayMax = 0,
  bound = 150,
): ScenarioSummary {
  const latencies = samples.map((sample) => sample.latency).sort((a, b) => a - b);
  const decisionLatencies = decisions.map((decision) => decision.latency).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const sample of samples) statuses[sample.status] = (statuses[sample.status] ?? 0) + 1;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    scenario,
    sent: samples.length,
    statuses,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? 0),
    decisionP99: round(percentile(decisionLatencies, 99)),
    decisionMax: round(decisionLatencies.at(-1) ?? 0),
    overBound: decisionLatencies.filter((ms) => ms > bound).length,
    loopDelayMax: round(loopDelayMax),
    degradedShare: decisions.length === 0 ? 0 : decisions.filter((d) => d.degraded).length / decisions.length,
    notes,
  };
}

/** Prints the summary and rewrites RESULTS.md, keeping the rows of scenarios this run did not touch. */
export function record(summary: ScenarioSummary): void {
  console.log(`[chaos] ${JSON.stringify(summary)}`);
  const all = previous().filter((s) => s.scenario !== summary.scenario);
  all.push(summary);
  all.sort((a, b) => a.scenario.localeCompare(b.scenario, 'en', { numeric: true }));
  writeFileSync(RESULTS_FILE, render(all));
}

const DATA = /<!-- chaos-data (.*) -->/;

/** The machine-readable copy of the rows, kept in RESULTS.md itself. */
function previous(): ScenarioSummary[] {
  if (!existsSync(RESULTS_FILE)) return [];
  const match = DATA.exec(readFileSync(RESULTS_FILE, 'utf8'));
  return match ? (JSON.parse(match[1] as string) as ScenarioSummary[]) : [];
}

function render(all: ScenarioSummary[]): string {
  const cpu = cpus();
  const header = [
    'scenario',
    'requests',
    'statuses',
    'HTTP p50 / p99 / max ms',
    'decision p99 / max ms',
    'decisions > 150 ms',
    'loop delay max ms',
    'degraded',
    'notes',
  ];
  const rows = all.map((s) => [
    s.scenario,
    String(s.sent),
    Object.entries(s.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', '),
    `${s.p50} / ${s.p99} / ${s.max}`,
    `${s.decisionP99} / ${s.decisionMax}`,
    String(s.overBound ?? 0),
    String(s.loopDelayMax),
    `${(s.degradedShare * 100).toFixed(1)} %`,
    s.notes,
  ]);
  return [
    '# Chaos suite results',
    '',
    'Written by the suite itself (test/chaos/support/report.ts); every run rewrites the rows of the scenarios it ran.',
    '',
    '- Command: `cd test && npx vitest run chaos`',
    `- Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}; shared with other work while measured.`,
    `- Last written: ${new Date().toISOString()}`,
    '- HTTP latency: request sent to response ended, at the load driver (a second process, loopback, open-loop load). Decision latency: request reaching the app to the limiter answering (key function + consume), the bound the suite asserts (`timeout` + 50 ms = 150 ms). Loop delay: the largest event-loop delay of the app process during the scenario, to tell machine noise from limiter waits.',
    '',
    ...table(header, rows),
    '',
    `<!-- chaos-data ${JSON.stringify(all)} -->`,
    '',
  ].join('\n');
}

/** A Markdown table with padded columns, as the formatter writes it. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}
