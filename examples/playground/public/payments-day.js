// The payments day: merchants on tiers and a flash sale share one processor ceiling whose reserve
// keeps captures and refunds going. One lane per stream of calls, drawn like the algorithm cards.
import { drawTimeline, outcomeOf } from './timeline.js';
import { newClientId } from './traffic.js';

const SPAN = 8500;

/** `count` send times, `step` ms apart from `first`. */
const every = (count, first, step) => Array.from({ length: count }, (_, i) => first + i * step);

/**
 * The day, in ms from the start of the run: two merchants charge steadily, the big one holds a
 * flash sale at 4.5 s, then captures and refunds (critical) arrive while charges keep coming.
 */
export const LANES = [
  { id: 'starter', merchant: 'corner-cafe', what: 'charges', calls: every(8, 0, 500).map(charge) },
  {
    id: 'growth',
    merchant: 'bike-shop',
    what: 'charges',
    calls: [...every(8, 250, 500), ...every(4, 5250, 500)].map(charge),
  },
  { id: 'flash', merchant: 'megamart', what: 'a flash sale of charges', calls: new Array(12).fill(4500).map(charge) },
  {
    id: 'critical',
    merchant: 'megamart',
    what: 'captures and refunds (critical)',
    calls: every(6, 5000, 500).map((at, i) => ({ at, route: i % 2 === 0 ? 'captures' : 'refunds' })),
  },
];

function charge(at) {
  return { at, route: 'charges' };
}

/** Loads the day's numbers, draws its lanes and arms its Run button. */
export async function setupPaymentsDay() {
  const section = document.querySelector('#payments-day');
  const config = await (await fetch('/api/payments/config', { cache: 'no-store' })).json();
  section.querySelector('.note').textContent = describe(config);
  const lanes = LANES.map((lane) => createLane(section, lane, config));
  const button = section.querySelector('button');
  button.disabled = false;
  button.addEventListener('click', () => {
    button.disabled = true;
    runDay(section, lanes)
      .catch((error) => {
        section.querySelector('[role="status"]').textContent = `The run failed: ${error.message}`;
      })
      .finally(() => {
        button.disabled = false;
      });
  });
}

function describe({ tiers, merchants, processor }) {
  const tierText = Object.entries(tiers)
    .map(([name, { capacity, refillRate }]) => `${name} ${capacity} at once and ${refillRate}/s`)
    .join(', ');
  const names = Object.values(merchants)
    .map(({ title, tier }) => `${title} (${tier})`)
    .join(', ');
  return (
    `${names}. Tiers: ${tierText}. Every charge, capture and refund also passes one processor ceiling ` +
    `of ${processor.capacity} (${processor.refillRate}/s), whose last ${processor.reserve} only captures and refunds may use.`
  );
}

function createLane(section, lane, config) {
  const merchant = config.merchants[lane.merchant];
  const element = document.querySelector('#lane').content.firstElementChild.cloneNode(true);
  element.dataset.lane = lane.id;
  element.querySelector('h3').textContent = `${merchant.title} (${merchant.tier}): ${lane.what}`;
  section.querySelector('.lanes').append(element);
  const state = { lane, element, records: [] };
  redraw(state);
  return state;
}

async function runDay(section, lanes) {
  const status = section.querySelector('[role="status"]');
  const client = newClientId();
  const total = lanes.reduce((sum, { lane }) => sum + lane.calls.length, 0);
  for (const state of lanes) {
    state.records = [];
    redraw(state);
  }
  status.textContent = `Running the payments day: ${total} calls…`;
  const schedule = lanes
    .flatMap((state) => state.lane.calls.map((call) => ({ state, call })))
    .sort((a, b) => a.call.at - b.call.at);
  const startedAt = performance.now();
  const finished = [];
  for (const { state, call } of schedule) {
    const due = startedAt + call.at - performance.now();
    if (due > 4) await new Promise((resolve) => setTimeout(resolve, due));
    finished.push(pay(state, call, client, startedAt));
  }
  await Promise.all(finished);
  status.textContent = `Done: ${total} calls sent.`;
}

/** Sends one call of a lane and records what came back; never rejects. */
async function pay(state, call, client, startedAt) {
  const record = { sent: performance.now() - startedAt, done: undefined, status: 0, delay: 0 };
  state.records.push(record);
  const url = `/api/payments/${call.route}?client=${client}&merchant=${state.lane.merchant}`;
  try {
    const response = await fetch(url, { method: 'POST', cache: 'no-store', headers: { accept: 'application/json' } });
    const body = await response.json().catch(() => ({}));
    record.status = response.status;
    record.degraded = body.degraded === true;
    record.violated = body['violated-policies'] ?? [];
  } catch {
    record.status = 0;
  }
  record.done = performance.now() - startedAt;
  redraw(state);
}

function redraw(state) {
  const svg = state.element.querySelector('.timeline');
  // A burst is sent at one instant: its rows go in the order the answers came back.
  const rows = [...state.records].sort((a, b) => a.sent - b.sent || (a.done ?? Infinity) - (b.done ?? Infinity));
  drawTimeline(svg, rows, { span: SPAN });
  // One mark per row, in order: say which layer refused it, and which answers were made locally.
  rows.forEach((record, i) => {
    const mark = svg.children[i];
    if (record.violated?.includes('processor')) mark?.classList.add('by-processor');
    if (record.degraded) mark?.classList.add('degraded');
  });
  const text = summary(state.records);
  state.element.querySelector('.counts').textContent = text;
  svg.setAttribute('aria-label', `Timeline of ${state.records.length} calls: ${text}`);
}

function summary(records) {
  const count = (test) => records.filter(test).length;
  const denied = count((r) => outcomeOf(r) === 'denied');
  const byProcessor = count((r) => outcomeOf(r) === 'denied' && r.violated?.includes('processor'));
  const parts = [`${count((r) => outcomeOf(r) === 'admitted')} admitted`, `${denied} denied`];
  if (denied > 0) parts[1] += ` (${byProcessor} by the processor ceiling)`;
  const local = count((r) => r.degraded);
  if (local > 0) parts.push(`${local} decided locally`);
  const failed = count((r) => outcomeOf(r) === 'failed');
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join(', ');
}
