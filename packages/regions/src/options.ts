import { InvalidOptionError, InvalidOptionTypeError } from '@floodgate/core';
import {
  consoleWarning,
  functionOption,
  onceWarner,
  rejectUnknownKeys,
  requireObject,
  show,
  timerOption,
} from '@floodgate/core/store';
import type { Duration, FloodgateWarning } from '@floodgate/core';
import type { Warn } from '@floodgate/core/store';
import type { RedisStoreClient } from '@floodgate/redis';

export interface RegionalLeaseOptions {
  /**
   * Units one lease takes from the home: a whole number >= 1, or a fraction of the layer's limit
   * below 1. Default: the fraction `(1 - threshold) / (2 * regions)` of the limit (at least 1).
   */
  size?: number;
  /**
   * Once the home has handed out this fraction of a key's limit (default 0.8), regions stop leasing
   * ahead: each request the region's pool cannot cover asks the home for exactly its cost.
   */
  threshold?: number;
  /**
   * How long a region's unused units may sit idle before it gives them back to the home (windows),
   * and how long a bucket's lease lasts. Default 1000 ms.
   */
  refresh?: Duration;
  /**
   * The share of a fixedWindow limit that each region other than a key's home may spend in every
   * window without asking the home: the home counts these allotments as handed out when the window
   * starts, so a key's first requests of a window are decided locally. What idle regions leave of
   * them goes unused: at most `(regions - 1) * allotment` of the limit. Default `0.05 / (regions - 1)`
   * (5 % of the limit in all); 0 turns allotments off. Every process must use the same value.
   */
  allotment?: number;
}

export interface RegionalStoreOptions {
  /** The region this process serves: one of the names in `regions`. */
  region: string;
  /**
   * Every region's Redis client, by region name (2 to 16 regions): `regions[region]` is this
   * region's own Redis; the others are reached across regions (give their clients a deadline).
   * Any client RedisStore takes (ioredis, iovalkey, node-redis, Valkey GLIDE, an adapter); single
   * nodes or Sentinel, not Cluster.
   */
  regions: Record<string, RedisStoreClient>;
  /**
   * The region holding a key's global budget. Default: rendezvous hashing of the key over the
   * region names, the same in every process that lists the same names. Every process must agree.
   */
  home?: (key: string) => string;
  lease?: RegionalLeaseOptions;
  /** Deadline of a call to a key's home, in ms; past it the region decides from its pool alone. Default 200. */
  homeTimeout?: Duration;
  /** Deadline of a call to this region's own Redis, in ms. Default 1000 (the limiter's `timeout` is the usual bound). */
  timeout?: Duration;
  /**
   * Ms a window's leased units stop before the window ends, on top of the round trip to its home:
   * the time between a decision's start and its local script run (and, with `clock`, how far apart
   * the processes' clocks may be). Default 50.
   */
  clockSkew?: Duration;
  /** Put before every key this store writes, with a `:`. Default `'rg'`. */
  prefix?: string;
  /**
   * The clock of every decision (ms), the homes' included. Default: each home decides with its
   * Redis' TIME, and each region turns the answer into its own clock (`Date.now`).
   */
  clock?: () => number;
  /** Where run-time warnings go (each code once per store). Default `console.warn`. */
  onWarning?: (warning: FloodgateWarning) => void;
}

export interface RegionalConfig {
  region: string;
  regions: Record<string, RedisStoreClient>;
  names: string[];
  home: ((key: string) => string) | undefined;
  size: number | undefined;
  threshold: number;
  refresh: number;
  /** The share of a fixedWindow limit each region other than the home may spend per window unasked. */
  allotment: number;
  homeTimeout: number;
  timeout: number;
  clockSkew: number;
  prefix: string;
  clock: () => number;
  /** The homes' clock: Redis TIME unless a clock was given. */
  homeClock: 'server' | (() => number);
  /** Where warnings go (the RedisStores of each region get it too). */
  sink: (warning: FloodgateWarning) => void;
  warn: Warn;
}

const KNOWN = [
  'region',
  'regions',
  'home',
  'lease',
  'homeTimeout',
  'timeout',
  'clockSkew',
  'prefix',
  'clock',
  'onWarning',
];
const REGION_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function parseRegionalOptions(options: RegionalStoreOptions): RegionalConfig {
  const raw = requireObject('RegionalStore', options);
  rejectUnknownKeys('RegionalStore', raw, KNOWN);
  const regions = requireObject('RegionalStore.regions', raw.regions) as Record<string, RedisStoreClient>;
  const names = Object.keys(regions).sort();
  if (names.length < 2 || names.length > 16) {
    throw new InvalidOptionError(`RegionalStore.regions must name 2 to 16 regions, got ${names.length}`);
  }
  for (const name of names) {
    if (!REGION_NAME.test(name)) {
      throw new InvalidOptionError(
        `RegionalStore.regions: a region name is 1-64 of A-Z a-z 0-9 _ . -, got ${show(name)}`,
      );
    }
  }
  if (typeof raw.region !== 'string' || !names.includes(raw.region)) {
    throw new InvalidOptionError(`RegionalStore.region must be one of ${names.join(', ')}, got ${show(raw.region)}`);
  }
  const sink =
    raw.onWarning === undefined
      ? consoleWarning
      : functionOption<(warning: FloodgateWarning) => void>('RegionalStore.onWarning', raw.onWarning);
  const clock = raw.clock === undefined ? undefined : functionOption<() => number>('RegionalStore.clock', raw.clock);
  const lease = raw.lease === undefined ? {} : requireObject('RegionalStore.lease', raw.lease);
  rejectUnknownKeys('RegionalStore.lease', lease, ['size', 'threshold', 'refresh', 'allotment']);
  return {
    region: raw.region,
    regions,
    names,
    home: raw.home === undefined ? undefined : functionOption<(key: string) => string>('RegionalStore.home', raw.home),
    size: parseSize(lease.size),
    threshold: parseThreshold(lease.threshold),
    refresh: lease.refresh === undefined ? 1000 : timerOption('RegionalStore.lease.refresh', lease.refresh),
    allotment: parseAllotment(lease.allotment, names.length),
    homeTimeout: raw.homeTimeout === undefined ? 200 : timerOption('RegionalStore.homeTimeout', raw.homeTimeout),
    timeout: raw.timeout === undefined ? 1000 : timerOption('RegionalStore.timeout', raw.timeout),
    clockSkew: raw.clockSkew === undefined ? 50 : timerOption('RegionalStore.clockSkew', raw.clockSkew, 0),
    prefix: parsePrefix(raw.prefix),
    clock: clock ?? Date.now,
    homeClock: clock ?? 'server',
    sink,
    warn: onceWarner(sink),
  };
}

function parseSize(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ok =
    typeof value === 'number' && Number.isFinite(value) && value > 0 && (value < 1 || Number.isSafeInteger(value));
  if (!ok) {
    throw new InvalidOptionError(
      `RegionalStore.lease.size must be a whole number >= 1 or a fraction of the limit in (0, 1), got ${show(value)}`,
    );
  }
  return value;
}

function parseThreshold(value: unknown): number {
  if (value === undefined) return 0.8;
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new InvalidOptionError(`RegionalStore.lease.threshold must be a number in (0, 1], got ${show(value)}`);
  }
  return value;
}

function parseAllotment(value: unknown, regions: number): number {
  if (value === undefined) return 0.05 / (regions - 1);
  if (typeof value !== 'number' || !(value >= 0 && value * (regions - 1) < 1)) {
    throw new InvalidOptionError(
      `RegionalStore.lease.allotment must be a number >= 0 below 1 / (regions - 1) = ${show(1 / (regions - 1))}, got ${show(value)}`,
    );
  }
  return value;
}

function parsePrefix(value: unknown): string {
  if (value === undefined) return 'rg';
  if (typeof value !== 'string' || value === '' || value.length > 64 || /[{}:]/.test(value)) {
    throw new InvalidOptionTypeError(
      `RegionalStore.prefix must be a string of 1-64 characters without { } or :, got ${show(value)}`,
    );
  }
  return value;
}
