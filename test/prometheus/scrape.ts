/** One scrape of a /metrics route, parsed from Prometheus' text format. */
export interface Scrape {
  /** The sample of `name` with exactly these labels; 0 when the scrape has none. */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether any sample of `name` was exposed. */
  has(name: string): boolean;
  /** The sum of every sample of `name`, whatever its labels. */
  sum(name: string): number;
  text: string;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** GETs `url` over HTTP and parses every sample line. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  if (!response.headers.get('content-type')?.startsWith('text/plain')) throw new Error('not the text format');
  const text = await response.text();
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, label, value] of (match[2] ?? '').matchAll(LABEL)) labels[label as string] = value as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return {
    text,
    has: (name) => samples.some((sample) => sample.name === name),
    sum: (name) => samples.reduce((total, sample) => (sample.name === name ? total + sample.value : total), 0),
    value(name, labels = {}) {
      const wanted = Object.entries(labels);
      const found = samples.find(
        (sample) =>
          sample.name === name &&
          Object.keys(sample.labels).length === wanted.length &&
          wanted.every(([label, value]) => sample.labels[label] === value),
      );
      return found?.value ?? 0;
    },
  };
}
