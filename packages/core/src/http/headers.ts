import { DEFAULTS } from '../base/defaults';
import { InvalidOptionTypeError, show } from '../base/errors';
import { rejectUnknownKeys, requireObject } from '../base/validate';
import { draft11RetryAfterMs, writeDraft11 } from './draft11-fields';
import { parsePartitionKey } from './partition-key';
import type { Decision, LayerResult } from '../limiter/decision';
import type { PartitionKeyOf, PartitionKeyOptions } from './partition-key';

/** Which IETF draft of the `RateLimit` fields to send, or false for none. */
export type StandardHeaders = 'draft-6' | 'draft-7' | 'draft-8' | 'draft-11' | false;

/** The header modes, as adapters take them. */
export interface HeaderModes {
  /** Default `'draft-8'`. */
  standardHeaders?: StandardHeaders;
  /** Send `X-RateLimit-Limit`, `-Remaining`, `-Reset` (Unix seconds). Default true. */
  legacyHeaders?: boolean;
  /**
   * draft-11 only: adds `pk`, a keyed hash of each layer's key, so a client acting for many users
   * can tell their quotas apart. Off by default; see PartitionKeyOptions.
   */
  partitionKey?: PartitionKeyOptions | false;
}

/** The header modes once checked: `partitionKey` is the function deriving `pk`, when on. */
export interface CheckedHeaderModes {
  standardHeaders: StandardHeaders;
  legacyHeaders: boolean;
  partitionKey?: PartitionKeyOf | undefined;
}

export interface HeaderOptions extends HeaderModes {
  /** The instant the decision was made, epoch ms. Default `Date.now()`. */
  now?: number;
}

/** Sets one response header; adapters pass their framework's setter, with the response it writes to. */
export type HeaderSetter<Res> = (res: Res, name: string, value: string) => void;

const STANDARD: readonly unknown[] = ['draft-6', 'draft-7', 'draft-8', 'draft-11', false];

/**
 * Validates and defaults the header modes; `where` names the options object in errors (for
 * adapters: `rateLimit`). Other keys of `options` are ignored, so an adapter can pass its own.
 */
export function parseHeaderModes(where: string, options: unknown): CheckedHeaderModes {
  const raw = requireObject(where, options);
  const standardHeaders = raw.standardHeaders === undefined ? DEFAULTS.standardHeaders : raw.standardHeaders;
  if (!STANDARD.includes(standardHeaders)) {
    throw new InvalidOptionTypeError(
      `${where}.standardHeaders must be one of 'draft-6', 'draft-7', 'draft-8', 'draft-11', false, got ${show(standardHeaders)}`,
    );
  }
  const legacy = raw.legacyHeaders === undefined ? DEFAULTS.legacyHeaders : raw.legacyHeaders;
  if (typeof legacy !== 'boolean') {
    throw new InvalidOptionTypeError(`${where}.legacyHeaders must be a boolean, got ${show(legacy)}`);
  }
  const partitionKey = parsePartitionKey(where, raw.partitionKey);
  return { standardHeaders: standardHeaders as StandardHeaders, legacyHeaders: legacy, partitionKey };
}

/**
 * The response headers for a decision: the `RateLimit` fields of the chosen draft (draft-8: one
 * item per layer, the binding layer first), the legacy `X-RateLimit-*` fields, and `Retry-After`
 * (whole seconds, rounded up) when the request was denied. A decision in which no layer applied
 * gets no rate-limit fields. Pure: the caller sets the headers.
 *
 * @example
 * const headers = buildHeaders(decision, { standardHeaders: 'draft-7', legacyHeaders: false });
 */
export function buildHeaders(decision: Decision, options: HeaderOptions = {}): Record<string, string> {
  const raw = requireObject('buildHeaders', options);
  rejectUnknownKeys('buildHeaders', raw, ['standardHeaders', 'legacyHeaders', 'partitionKey', 'now']);
  const modes = parseHeaderModes('buildHeaders', raw);
  const headers: Record<string, string> = {};
  writeHeaders(decision, modes, raw.now === undefined ? Date.now() : nowOption(raw.now), headers, collect);
  return headers;
}

function collect(headers: Record<string, string>, name: string, value: string): void {
  headers[name] = value;
}

/**
 * buildHeaders for modes already checked, straight onto a response: the middleware sets each field
 * with `set(res, …)`, so no header object is built per request.
 */
export function writeHeaders<Res>(
  decision: Decision,
  modes: CheckedHeaderModes,
  now: number,
  res: Res,
  set: HeaderSetter<Res>,
): void {
  const results = decision.results;
  const binding = bindingOf(decision);
  if (binding !== undefined) {
    const reset = resetSeconds(binding, now);
    switch (modes.standardHeaders) {
      case 'draft-11':
        writeDraft11(decision, binding, now, modes.partitionKey, res, set);
        break;
      case 'draft-8':
        set(res, 'RateLimit-Policy', draft8Policies(results, binding));
        set(res, 'RateLimit', draft8States(results, binding, now));
        break;
      case 'draft-7':
        set(res, 'RateLimit', `limit=${int(binding.limit)}, remaining=${remainingOf(binding)}, reset=${reset}`);
        set(res, 'RateLimit-Policy', `${int(binding.limit)};w=${windowSeconds(binding)}`);
        break;
      case 'draft-6':
        set(res, 'RateLimit-Policy', `${int(binding.limit)};w=${windowSeconds(binding)}`);
        set(res, 'RateLimit-Limit', String(int(binding.limit)));
        set(res, 'RateLimit-Remaining', String(remainingOf(binding)));
        set(res, 'RateLimit-Reset', String(reset));
        break;
    }
    if (modes.legacyHeaders) {
      set(res, 'X-RateLimit-Limit', String(int(binding.limit)));
      set(res, 'X-RateLimit-Remaining', String(remainingOf(binding)));
      set(res, 'X-RateLimit-Reset', String(resetEpochSeconds(binding, now)));
    }
  }
  // A refusal no wait can cure (a cost above what a layer can ever grant) has retryAfter 0: no Retry-After.
  if (!decision.allowed && decision.retryAfter > 0) {
    const wait = modes.standardHeaders === 'draft-11' ? draft11RetryAfterMs(decision, now) : decision.retryAfter;
    set(res, 'Retry-After', String(retryAfterSeconds(wait)));
  }
}

/** Retry-After in whole seconds: rounded up, at least 1. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return int(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}

/** The layer named by `decision.rule`, else the first that is not a shadow (shadow rules send no headers). */
function bindingOf(decision: Decision): LayerResult | undefined {
  const results = decision.results;
  let first: LayerResult | undefined;
  for (let i = 0; i < results.length; i++) {
    const result = results[i] as LayerResult;
    if (result.shadow === true) continue;
    if (result.rule === decision.rule) return result;
    first ??= result;
  }
  return first;
}

/**
 * draft-8 and later: Structured Field lists with one item per layer, the binding layer first.
 * Rule names are limited to `[A-Za-z0-9._-]`, so they need no escaping inside sf-strings.
 */
function draft8Policies(results: readonly LayerResult[], binding: LayerResult): string {
  let list = policyItem(binding);
  for (const layer of results) if (layer !== binding && layer.shadow !== true) list += `, ${policyItem(layer)}`;
  return list;
}

function draft8States(results: readonly LayerResult[], binding: LayerResult, now: number): string {
  let list = stateItem(binding, now);
  for (const layer of results) if (layer !== binding && layer.shadow !== true) list += `, ${stateItem(layer, now)}`;
  return list;
}

/** Concurrency layers count in-flight requests, which the draft names with `qu`. */
function policyItem(layer: LayerResult): string {
  const unit = layer.kind === 'concurrency' ? ';qu="concurrent-requests"' : '';
  return `"${layer.rule}";q=${int(layer.limit)};w=${windowSeconds(layer)}${unit}`;
}

function stateItem(layer: LayerResult, now: number): string {
  return `"${layer.rule}";r=${remainingOf(layer)};t=${resetSeconds(layer, now)}`;
}

function windowSeconds(layer: LayerResult): number {
  return int(Math.ceil(layer.window / 1000));
}

function remainingOf(layer: LayerResult): number {
  return int(Math.max(0, layer.remaining));
}

/**
 * Seconds until the layer resets. A denied layer advertises the moment it would allow the request:
 * the IETF draft says Retry-After should not point earlier than the reset, and a layer's full
 * replenishment can lie well after its first free unit.
 */
function resetSeconds(layer: LayerResult, now: number): number {
  return layer.allowed
    ? int(Math.max(0, Math.ceil((layer.resetAt - now) / 1000)))
    : retryAfterSeconds(layer.retryAfter);
}

/** The same instant as resetSeconds, as Unix epoch seconds rounded up. */
function resetEpochSeconds(layer: LayerResult, now: number): number {
  return int(Math.ceil(Math.max(now, layer.allowed ? layer.resetAt : now + layer.retryAfter) / 1000));
}

/** RFC 9651 integers have at most 15 digits; a larger quota is stated as the largest one. */
const MAX_SF_INTEGER = 999_999_999_999_999;

function int(value: number): number {
  return Math.min(value, MAX_SF_INTEGER);
}

function nowOption(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidOptionTypeError(
      `buildHeaders.now must be a finite number of epoch milliseconds, got ${show(value)}`,
    );
  }
  return value;
}
