// SIMULATIONS, not the peers' code: models of two published multi-region designs, built from their
// public descriptions (shared/research/frontier.md §2.1 and §2.2), run on the request times the
// real benchmark recorded, so the three columns see the same workload.
//
// Upstash MultiRegionRatelimit (fixed window): each request writes its id into the window's hash
// in every region (its own region at once, the others after the one-way delay) and is admitted
// when its own region's hash, summed with its id in it, is within the limit. Denied requests'
// ids are written too (the script writes before it sums).
//
// Unkey (global counters): each region admits while its own count plus the foreign counts it last
// pulled stay within the limit; a region publishes its own count only once it is at least half the
// limit; pushes and pulls every 10 s with 20 % jitter, each region on its own phase.

/** A small seeded generator (mulberry32), so the models give the same answer every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * requests: [{ t (ms from the window's start), region (index), key }] of ONE window; returns the
 * admitted count per key.
 */
export function upstashModel(requests, { limit, delayMs, regions }) {
  const events = [];
  for (const request of requests) {
    events.push({ t: request.t, kind: 1, request });
    for (let j = 0; j < regions; j++)
      if (j !== request.region) events.push({ t: request.t + delayMs, kind: 0, j, request });
  }
  // Arrivals before decisions at the same instant.
  events.sort((a, b) => a.t - b.t || a.kind - b.kind);
  const hash = new Map();
  const admitted = new Map();
  const countOf = (key) => {
    let counts = hash.get(key);
    if (counts === undefined) {
      counts = new Array(regions).fill(0);
      hash.set(key, counts);
    }
    return counts;
  };
  for (const event of events) {
    const { key, region } = event.request;
    if (event.kind === 0) {
      countOf(key)[event.j]++;
      continue;
    }
    const counts = countOf(key);
    counts[region]++;
    if (counts[region] <= limit) admitted.set(key, (admitted.get(key) ?? 0) + 1);
  }
  return admitted;
}

/** The same input; `periodMs` 10 s, `floor` 0.5 as Unkey's code has them. */
export function unkeyModel(requests, { limit, regions, periodMs = 10_000, jitter = 0.2, floor = 0.5, seed = 7 }) {
  const rand = random(seed);
  const end = Math.max(0, ...requests.map((r) => r.t)) + 1;
  const events = requests.map((request) => ({ t: request.t, kind: 2, request }));
  for (let r = 0; r < regions; r++) {
    for (const kind of [0, 1]) {
      // 0: push, 1: pull; each region starts at a random phase.
      let t = rand() * periodMs;
      while (t < end) {
        events.push({ t, kind, region: r });
        t += periodMs * (1 - jitter + 2 * jitter * rand());
      }
    }
  }
  events.sort((a, b) => a.t - b.t || a.kind - b.kind);
  const local = new Map();
  const published = new Map();
  const seen = new Map();
  const admitted = new Map();
  const vector = (map, key) => {
    let v = map.get(key);
    if (v === undefined) {
      v = new Array(regions).fill(0);
      map.set(key, v);
    }
    return v;
  };
  for (const event of events) {
    if (event.kind === 0) {
      for (const [key, counts] of local)
        if (counts[event.region] >= floor * limit) vector(published, key)[event.region] = counts[event.region];
    } else if (event.kind === 1) {
      for (const [key, values] of published) {
        const view = vector(seen, `${event.region}|${key}`);
        for (let j = 0; j < regions; j++) if (j !== event.region) view[j] = values[j];
      }
    } else {
      const { key, region } = event.request;
      const counts = vector(local, key);
      const view = vector(seen, `${region}|${key}`);
      let total = counts[region];
      for (let j = 0; j < regions; j++) if (j !== region) total += view[j];
      if (total + 1 <= limit) {
        counts[region]++;
        admitted.set(key, (admitted.get(key) ?? 0) + 1);
      }
    }
  }
  return admitted;
}
