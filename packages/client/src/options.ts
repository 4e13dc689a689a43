import { durationOption } from './duration';
import { InvalidOptionError, InvalidOptionTypeError, show } from './errors';
import type { Duration } from './duration';

/** A function that fetches like the global `fetch`. */
export type FetchLike = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** Why a call waited: held back before sending (`pace`), or backing off before a retry (`retry`). */
export interface WaitEvent {
  reason: 'pace' | 'retry';
  /** How long it waits, in ms: the server's minimum plus the jitter drawn. */
  ms: number;
  /** The server's minimum within `ms`: `Retry-After`, or the end of a spent policy's effective window; 0 when it gave none. */
  minimum: number;
  /** The attempt that follows the wait, 1 for the first. */
  attempt: number;
  url: string;
}

/** Why a throttled answer (429; 503 with `Retry-After`; 403 with `Retry-After` or a spent policy) was handed back without a retry. */
export interface GiveUpEvent {
  reason: 'method' | 'body' | 'attempts' | 'max-wait';
  status: number;
  /** Attempts made, this one included. */
  attempt: number;
  url: string;
}

export interface PoliteFetchOptions {
  /** The fetch to wrap. Default `globalThis.fetch`, looked up on each call. */
  fetch?: FetchLike;
  /** Attempts per call, the first included. Default 4. */
  maxAttempts?: number;
  /** The most one call waits in all, pacing and backoff together. Default `'30 s'`. */
  maxWait?: Duration;
  /** Width of the random wait drawn on top of the server's minimum (full jitter). Default `'1 s'`. */
  jitter?: Duration;
  /** Methods whose throttled answers are retried. Default IDEMPOTENT_METHODS; add `'POST'` to retry it too. */
  retryMethods?: readonly string[];
  /** Hold requests back until the end of a policy's effective window once it has this many units left or fewer; false never does. Default 0. */
  pace?: number | false;
  /**
   * Which requests share what pacing learns, from the URL and the request's headers. Default the
   * URL's origin. A client calling for many users gives each user its own, e.g.
   * `(url, headers) => url.origin + ' ' + headers.get('x-user')`. A scope that throws: no pacing for that call.
   */
  scope?: (url: URL, headers: Headers) => string;
  /** Random numbers in [0, 1) for the jitter. Default `Math.random`. */
  random?: () => number;
  /** Called before every wait. A hook that throws is ignored. */
  onWait?: (event: WaitEvent) => void;
  /** Called when a throttled answer goes back to the caller unretried. A hook that throws is ignored. */
  onGiveUp?: (event: GiveUpEvent) => void;
}

/** The methods RFC 9110 calls idempotent and this package retries by default. */
export const IDEMPOTENT_METHODS: readonly string[] = Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** The defaults, in one place. */
export const DEFAULTS = { maxAttempts: 4, maxWait: 30_000, jitter: 1000, pace: 0 } as const;

/** PoliteFetchOptions checked and defaulted. */
export interface Config {
  fetch: FetchLike | undefined;
  maxAttempts: number;
  maxWait: number;
  jitter: number;
  retryMethods: ReadonlySet<string>;
  pace: number | false;
  /** Undefined for the default, the URL's origin (then no Headers is built per call). */
  scope: ((url: URL, headers: Headers) => string) | undefined;
  random: () => number;
  onWait: ((event: WaitEvent) => void) | undefined;
  onGiveUp: ((event: GiveUpEvent) => void) | undefined;
}

const KEYS = [
  'fetch',
  'maxAttempts',
  'maxWait',
  'jitter',
  'retryMethods',
  'pace',
  'scope',
  'random',
  'onWait',
  'onGiveUp',
];
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Turns the user's options into a Config; throws an error naming the option and the value. */
export function parseOptions(options: unknown): Config {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidOptionTypeError(`politeFetch: options must be an object, got ${show(options)}`);
  }
  const raw = options as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!KEYS.includes(key)) {
      throw new InvalidOptionTypeError(`politeFetch: unknown option "${key}"; expected one of ${KEYS.join(', ')}`);
    }
  }
  return {
    fetch: optionalFunction<FetchLike>('fetch', raw.fetch),
    maxAttempts: raw.maxAttempts === undefined ? DEFAULTS.maxAttempts : attempts(raw.maxAttempts),
    maxWait: raw.maxWait === undefined ? DEFAULTS.maxWait : durationOption('politeFetch.maxWait', raw.maxWait),
    jitter: raw.jitter === undefined ? DEFAULTS.jitter : durationOption('politeFetch.jitter', raw.jitter),
    retryMethods: raw.retryMethods === undefined ? new Set(IDEMPOTENT_METHODS) : methods(raw.retryMethods),
    pace: raw.pace === undefined ? DEFAULTS.pace : pace(raw.pace),
    scope: optionalFunction<(url: URL, headers: Headers) => string>('scope', raw.scope),
    random: optionalFunction<() => number>('random', raw.random) ?? Math.random,
    onWait: optionalFunction('onWait', raw.onWait),
    onGiveUp: optionalFunction('onGiveUp', raw.onGiveUp),
  };
}

function optionalFunction<F>(name: string, value: unknown): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidOptionTypeError(`politeFetch.${name} must be a function, got ${show(value)}`);
  }
  return value as F | undefined;
}

function attempts(value: unknown): number {
  const message = `politeFetch.maxAttempts must be an integer from 1 to 100, got ${show(value)}`;
  if (typeof value !== 'number') throw new InvalidOptionTypeError(message);
  if (!Number.isInteger(value) || value < 1 || value > 100) throw new InvalidOptionError(message);
  return value;
}

function methods(value: unknown): Set<string> {
  if (!Array.isArray(value)) {
    throw new InvalidOptionTypeError(`politeFetch.retryMethods must be an array of method names, got ${show(value)}`);
  }
  const set = new Set<string>();
  value.forEach((method: unknown, i) => {
    if (typeof method !== 'string' || !METHOD.test(method)) {
      throw new InvalidOptionTypeError(
        `politeFetch.retryMethods[${i}] must be a method name such as 'GET', got ${show(method)}`,
      );
    }
    set.add(method.toUpperCase());
  });
  return set;
}

function pace(value: unknown): number | false {
  const message = `politeFetch.pace must be false or an integer >= 0 (units left at which to wait for the reset), got ${show(value)}`;
  if (value === false) return false;
  if (typeof value !== 'number') throw new InvalidOptionTypeError(message);
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidOptionError(message);
  return value;
}
