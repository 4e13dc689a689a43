// Draws one algorithm's run as a waterfall: one row per request in the order it was sent, x = time.
const SVG = 'http://www.w3.org/2000/svg';

/** What happened to a request: 'pending', 'admitted', 'delayed', 'denied' or 'failed'. */
export function outcomeOf(record) {
  if (record.done === undefined) return 'pending';
  if (record.status === 429) return 'denied';
  if (record.status >= 200 && record.status < 300) return record.delay > 0 ? 'delayed' : 'admitted';
  return 'failed';
}

/**
 * Redraws `svg` for `records` (each `{ sent, done, status, delay }` in ms from the run's start).
 * `span` is the time the x axis covers; `boundaries` are window boundaries to mark, in the same ms.
 */
export function drawTimeline(svg, records, { span, boundaries = [], holdsOpen = false }) {
  const height = Math.min(300, Math.max(120, records.length * 7));
  const width = svg.clientWidth || 400;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('height', String(height));
  svg.replaceChildren();
  const x = (ms) => 6 + (Math.min(Math.max(ms, 0), span) / span) * (width - 12);
  const row = height / Math.max(records.length, 1);
  const size = Math.max(2, Math.min(5, row * 0.45));

  for (const at of boundaries) add(svg, 'line', { class: 'boundary', x1: x(at), x2: x(at), y1: 0, y2: height });
  records.forEach((record, i) => {
    const y = row * (i + 0.5);
    const outcome = outcomeOf(record);
    const waited = outcome === 'delayed' || (holdsOpen && outcome === 'admitted');
    if (waited)
      add(svg, 'line', {
        class: outcome === 'delayed' ? 'wait' : 'held',
        x1: x(record.sent),
        x2: x(record.done),
        y1: y,
        y2: y,
      });
    if (outcome === 'denied' || outcome === 'failed') {
      const d = `M${x(record.sent) - size} ${y - size}L${x(record.sent) + size} ${y + size}M${x(record.sent) + size} ${y - size}L${x(record.sent) - size} ${y + size}`;
      add(svg, 'path', { class: outcome, d });
    } else {
      add(svg, 'circle', { class: outcome, cx: x(record.sent), cy: y, r: size });
    }
  });
}

function add(parent, name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  parent.append(element);
}
