import { InvalidOptionTypeError } from '@floodgate/core';
import { Counter, Gauge, register } from 'prom-client';
import { DEFAULTS, prefixOption, registryOption } from './options';
import type { AdaptiveConcurrency, AdaptiveSnapshot } from '@floodgate/core';
import type { Registry } from 'prom-client';
import { rejectUnknownKeys, requireObject, show } from '@floodgate/core/store';

export interface AdaptiveMetricsOptions {
  /** Default: prom-client's global `register`. */
  registry?: Registry;
  /** Start of every metric name. Default `'floodgate_'`. */
  prefix?: string;
}

const WHERE = 'adaptiveMetrics';

/** The layers each registry and prefix reports, read at every scrape. */
const reported = new WeakMap<Registry, Map<string, Set<AdaptiveConcurrency>>>();

/**
 * Gauges of an adaptiveConcurrency() layer, read from it at each scrape (nothing runs per
 * request): `<prefix>adaptive_limit`, `_in_flight`, `_rtt_seconds{estimate="baseline"|"recent"}`
 * and the counter `_shed_total{priority}`, each labelled with the layer's `name`. Several layers
 * (or calls) share the metrics of one registry and prefix.
 *
 * @example
 * const adaptive = adaptiveConcurrency();
 * adaptiveMetrics(adaptive, { registry });
 * app.use(rateLimit({ limits: [adaptive], ...prometheusHooks({ registry }) }));
 */
export function adaptiveMetrics(layer: AdaptiveConcurrency<never>, options: AdaptiveMetricsOptions = {}): void {
  if (typeof (layer as { snapshot?: unknown } | null)?.snapshot !== 'function') {
    throw new InvalidOptionTypeError(`${WHERE} needs a layer made by adaptiveConcurrency(), got ${show(layer)}`);
  }
  const raw = requireObject(WHERE, options);
  rejectUnknownKeys(WHERE, raw, ['registry', 'prefix']);
  const registry = raw.registry === undefined ? register : registryOption(raw.registry, WHERE);
  const prefix = raw.prefix === undefined ? DEFAULTS.prefix : prefixOption(raw.prefix, WHERE);
  let byPrefix = reported.get(registry);
  if (byPrefix === undefined) {
    byPrefix = new Map();
    reported.set(registry, byPrefix);
  }
  let layers = byPrefix.get(prefix);
  if (layers === undefined) {
    layers = new Set();
    byPrefix.set(prefix, layers);
    registerAdaptive(registry, prefix, layers);
  }
  layers.add(layer as AdaptiveConcurrency);
}

function registerAdaptive(registry: Registry, prefix: string, layers: Set<AdaptiveConcurrency>): void {
  const each = (read: (snapshot: AdaptiveSnapshot, name: string) => void) => {
    for (const layer of layers) read(layer.snapshot(), layer.name);
  };
  new Gauge({
    name: `${prefix}adaptive_limit`,
    help: 'The adaptive concurrency limit: requests the process admits at once now.',
    labelNames: ['layer'],
    registers: [registry],
    collect() {
      each((snapshot, name) => this.set({ layer: name }, snapshot.limit));
    },
  });
  new Gauge({
    name: `${prefix}adaptive_in_flight`,
    help: 'Requests admitted by the adaptive layer and not yet finished.',
    labelNames: ['layer'],
    registers: [registry],
    collect() {
      each((snapshot, name) => this.set({ layer: name }, snapshot.inFlight));
    },
  });
  new Gauge({
    name: `${prefix}adaptive_rtt_seconds`,
    help: "The adaptive layer's latency estimates: baseline (Vegas: no-load RTT; Gradient2: long-term average) and the latest window's mean.",
    labelNames: ['layer', 'estimate'],
    registers: [registry],
    collect() {
      each((snapshot, name) => {
        this.set({ layer: name, estimate: 'baseline' }, snapshot.rtt.baseline / 1000);
        this.set({ layer: name, estimate: 'recent' }, snapshot.rtt.recent / 1000);
      });
    },
  });
  const seen = new Map<string, number>();
  new Counter({
    name: `${prefix}adaptive_shed_total`,
    help: 'Requests the adaptive layer shed (503), by priority.',
    labelNames: ['layer', 'priority'],
    registers: [registry],
    collect() {
      each((snapshot, name) => {
        for (const priority of ['normal', 'critical'] as const) {
          const key = `${name}\u0000${priority}`;
          const total = snapshot.shed[priority];
          this.inc({ layer: name, priority }, total - (seen.get(key) ?? 0));
          seen.set(key, total);
        }
      });
    },
  });
}
