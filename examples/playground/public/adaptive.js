// The adaptive concurrency card: the server sends a steady load to a route behind
// adaptiveConcurrency(); the slider makes its fake dependency slower or faster, and the chart
// plots, four times a second, the limit the layer settled on and the latency of admitted requests.

const WIDTH = 600;
const HEIGHT = 200;
const SVG = 'http://www.w3.org/2000/svg';

export async function setupAdaptive() {
  const section = document.querySelector('#adaptive');
  const slider = section.querySelector('input[name="service"]');
  const shown = section.querySelector('output');
  const button = section.querySelector('button');
  const status = section.querySelector('[role="status"]');
  const chart = section.querySelector('svg.adaptive-chart');
  let state = await fetchState();
  section.querySelector('.note').textContent =
    `A dependency of ${state.workers} workers behind adaptiveConcurrency(), sent ${state.rate} requests a second by the server. At ${state.serviceMs} ms a call it serves ${Math.round((state.workers * 1000) / state.serviceMs)} a second: slow it down and watch the limit fall and the latency of what is admitted stay bounded.`;
  slider.min = String(state.minServiceMs);
  slider.max = String(state.maxServiceMs);
  slider.value = String(state.serviceMs);
  shown.value = `${state.serviceMs} ms`;
  slider.addEventListener('input', () => {
    shown.value = `${slider.value} ms`;
  });
  slider.addEventListener('change', () => {
    fetch(`/api/adaptive/service?ms=${slider.value}`, { method: 'POST' }).catch(() => {});
  });
  let polling;
  const refresh = async () => {
    state = await fetchState();
    draw(chart, state.points);
    status.textContent = describe(state);
    button.textContent = state.running ? 'Stop the load' : 'Start the load';
    if (!state.running && polling !== undefined) {
      clearInterval(polling);
      polling = undefined;
    }
  };
  button.disabled = false;
  button.addEventListener('click', async () => {
    await fetch(`/api/adaptive/load?on=${!state.running}`, { method: 'POST' });
    await refresh();
    polling ??= setInterval(() => refresh().catch(() => {}), 250);
  });
}

async function fetchState() {
  return (await fetch('/api/adaptive/state', { cache: 'no-store' })).json();
}

function describe({ running, points }) {
  const last = points.at(-1);
  if (last === undefined) return running ? 'Starting…' : 'Stopped.';
  const shed = points.reduce((sum, p) => sum + p.shed, 0);
  const p99 = last.p99 === null ? '—' : `${last.p99} ms`;
  return `${running ? 'Running' : 'Stopped'}: limit ${last.limit}, in flight ${last.inFlight}, p99 ${p99}, ${shed} shed.`;
}

/** Two lines over time: the limit (left scale) and the p99 latency of admitted requests (right scale). */
function draw(chart, points) {
  chart.replaceChildren();
  chart.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  if (points.length === 0) return;
  const t0 = points[0].t;
  const span = Math.max(10, points.at(-1).t - t0);
  const x = (t) => ((t - t0) / span) * WIDTH;
  const maxLimit = Math.max(...points.map((p) => p.limit), 1);
  const maxMs = Math.max(...points.map((p) => p.p99 ?? 0), 100);
  line(
    chart,
    'limit',
    points.map((p) => [x(p.t), HEIGHT - (p.limit / maxLimit) * (HEIGHT - 10)]),
  );
  line(
    chart,
    'latency',
    points.filter((p) => p.p99 !== null).map((p) => [x(p.t), HEIGHT - (p.p99 / maxMs) * (HEIGHT - 10)]),
  );
  label(chart, 4, 14, `limit (max ${maxLimit})`, 'limit');
  label(chart, WIDTH - 4, 14, `p99 ms (max ${maxMs})`, 'latency', 'end');
  chart.setAttribute('aria-label', `Limit and p99 latency over the last ${Math.round(span)} s`);
}

function line(chart, series, coordinates) {
  const polyline = document.createElementNS(SVG, 'polyline');
  polyline.setAttribute('class', series);
  polyline.dataset.series = series;
  polyline.setAttribute('points', coordinates.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' '));
  chart.append(polyline);
}

function label(chart, x, y, text, series, anchor = 'start') {
  const node = document.createElementNS(SVG, 'text');
  node.setAttribute('x', String(x));
  node.setAttribute('y', String(y));
  node.setAttribute('class', `label ${series}`);
  node.setAttribute('text-anchor', anchor);
  node.textContent = text;
  chart.append(node);
}
