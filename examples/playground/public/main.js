import { setupAdaptive } from './adaptive.js';
import { setupPaymentsDay } from './payments-day.js';
import { drawTimeline, outcomeOf } from './timeline.js';
import { chooseHosts, fetchConfig, newClientId, schedule, send } from './traffic.js';

const form = document.querySelector('#controls');
const status = document.querySelector('#status');
const cards = new Map();
let setup;

async function start() {
  const { config } = await fetchConfig();
  const hosts = await chooseHosts(config.algorithms);
  setup = { algorithms: config.algorithms, bases: hosts.bases };
  document.querySelector('#store-info').textContent =
    `Limits live in a ${config.store === 'redis' ? 'Redis' : 'memory'} store. ` +
    (hosts.spread
      ? 'Each algorithm is called on its own *.localhost host, so none waits for a browser connection.'
      : 'All routes share this origin: the browser sends at most six requests at a time, so held requests can delay others.');
  for (const algorithm of config.algorithms) cards.set(algorithm.id, createCard(algorithm));
  form.querySelector('#run').disabled = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run().catch((error) => {
      status.textContent = `The run failed: ${error.message}`;
      form.querySelector('#run').disabled = false;
    });
  });
}

function createCard(algorithm) {
  const section = document.querySelector('#card').content.firstElementChild.cloneNode(true);
  section.id = `algorithm-${algorithm.id}`;
  section.dataset.algorithm = algorithm.id;
  section.querySelector('h2').textContent = algorithm.title;
  section.querySelector('.note').textContent = algorithm.note;
  section.querySelector('.policy code').textContent = `${algorithm.kind}({ ${optionsText(algorithm.options)} })`;
  section.setAttribute('aria-labelledby', `${section.id}-title`);
  section.querySelector('h2').id = `${section.id}-title`;
  document.querySelector('#algorithms').append(section);
  return { algorithm, section, records: [], span: 1, boundaries: [] };
}

async function run() {
  const button = form.querySelector('#run');
  button.disabled = true;
  const data = new FormData(form);
  const pattern = data.get('pattern');
  const amounts = {
    rate: bounded(data.get('rate'), 1, 5),
    seconds: bounded(data.get('seconds'), 1, 20),
    burst: bounded(data.get('burst'), 1, 30),
  };
  const { config, offset } = await fetchConfig();
  const plan = schedule(pattern, amounts, config, offset);
  const total = plan.sends.length * cards.size;
  status.textContent =
    plan.delay > 0 ? `Waiting ${(plan.delay / 1000).toFixed(1)} s for the next window boundary…` : 'Running…';
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, plan.delay)));

  const startedAt = performance.now();
  const serverStart = startedAt + offset;
  const client = newClientId();
  for (const card of cards.values()) {
    card.records = [];
    card.span = plan.span;
    card.boundaries = boundariesOf(card.algorithm, serverStart, plan.span);
    redraw(card);
  }
  status.textContent = `Running: ${total} requests, ${plan.sends.length} per algorithm…`;
  const finished = [];
  for (const at of plan.sends) {
    const due = startedAt + at - performance.now();
    if (due > 4) await new Promise((resolve) => setTimeout(resolve, due));
    for (const card of cards.values()) finished.push(fire(card, client, startedAt));
  }
  await Promise.all(finished);
  status.textContent = `Done: ${total} requests sent. ${summary([...cards.values()].flatMap((c) => c.records))}.`;
  button.disabled = false;
}

function fire(card, client, startedAt) {
  const record = { sent: performance.now() - startedAt, done: undefined, status: 0, delay: 0 };
  card.records.push(record);
  const url = `${setup.bases[card.algorithm.id]}${card.algorithm.route}?client=${client}`;
  return send(url, record.sent, (result) => {
    Object.assign(record, result, { done: result.done - startedAt, answered: result.answered - startedAt });
    card.last = record;
    redrawSoon(card);
  });
}

/** One redraw per card per frame: redrawing on every response would hold up the next sends. */
function redrawSoon(card) {
  if (card.redrawPending) return;
  card.redrawPending = true;
  requestAnimationFrame(() => {
    card.redrawPending = false;
    redraw(card);
  });
}

function redraw(card) {
  const holdsOpen = card.algorithm.kind === 'concurrency';
  drawTimeline(card.section.querySelector('.timeline'), inDecisionOrder(card.records), {
    span: card.span,
    boundaries: card.boundaries,
    holdsOpen,
  });
  const text = summary(card.records);
  card.section.querySelector('.counts').textContent = text;
  card.section
    .querySelector('.timeline')
    .setAttribute('aria-label', `Timeline of ${card.records.length} requests: ${text}`);
  card.section.querySelector('.axis .end').textContent = `${Math.round(card.span / 1000)} s`;
  const list = card.section.querySelector('.headers');
  list.replaceChildren();
  const headers = card.last?.headers ?? {};
  for (const [name, value] of Object.entries(headers)) list.append(element('dt', name), element('dd', value));
  if (card.last?.degraded)
    list.append(element('dt', 'Note'), element('dd', 'decided by the local fallback (store unreachable)'));
}

/**
 * Rows in the order the server decided, which for a burst is not the order the browser sent them.
 * Headers arrive when the limiter has decided, except on the shaping route, which answers after `delay`.
 */
function inDecisionOrder(records) {
  const decidedAt = (r) => (r.answered === undefined ? Number.POSITIVE_INFINITY : r.answered - r.delay);
  return [...records].sort((a, b) => decidedAt(a) - decidedAt(b) || a.sent - b.sent);
}

function summary(records) {
  const counts = { admitted: 0, delayed: 0, denied: 0, failed: 0, pending: 0 };
  for (const record of records) counts[outcomeOf(record)] += 1;
  return Object.entries(counts)
    .filter(([name, n]) => n > 0 || name === 'admitted' || name === 'denied')
    .map(([name, n]) => `${n} ${name}`)
    .join(', ');
}

/** Window boundaries of the clock-aligned algorithms inside the run, in ms from its start. */
function boundariesOf(algorithm, serverStart, span) {
  if (algorithm.kind !== 'fixedWindow' && algorithm.kind !== 'slidingWindow') return [];
  const first = Math.ceil(serverStart / algorithm.window) * algorithm.window;
  const marks = [];
  for (let at = first; at <= serverStart + span; at += algorithm.window) marks.push(at - serverStart);
  return marks;
}

function optionsText(options) {
  return Object.entries(options)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? `'${value}'` : value}`)
    .join(', ');
}

function element(name, text) {
  const node = document.createElement(name);
  node.textContent = text;
  return node;
}

function bounded(value, min, max) {
  const number = Math.round(Number(value));
  return Number.isFinite(number) ? Math.min(max, Math.max(min, number)) : min;
}

addEventListener('resize', () => {
  for (const card of cards.values()) redraw(card);
});

start().catch((error) => {
  status.textContent = `Could not load the playground: ${error.message}`;
});

setupPaymentsDay().catch((error) => {
  document.querySelector('#payments-status').textContent = `Could not load the payments day: ${error.message}`;
});

setupAdaptive().catch((error) => {
  document.querySelector('#adaptive [role="status"]').textContent =
    `Could not load the adaptive card: ${error.message}`;
});
