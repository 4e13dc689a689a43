import { InvalidOptionTypeError, show } from '../errors';
import { rejectUnknownKeys, requireObject } from '../validate';
import { draft6Headers } from './draft-6';
import { draft7Headers } from './draft-7';
import { draft8Headers } from './draft-8';
import { legacyHeaders } from './legacy';
import { quotasOf, retryAfterSeconds } from './quota';
import type { Decision } from '../decision';

/** Which IETF draft of the `RateLimit` fields to send, or false for none. */
export type StandardHeaders = 'draft-6' | 'draft-7' | 'draft-8' | false;

/** The header modes, as adapters take them. */
export interface HeaderModes {
  /** Default `'draft-8'`. */
  standardHeaders?: StandardHeaders;
  /** Send `X-RateLimit-Limit`, `-Remaining`, `-Reset` (Unix seconds). Default true. */
  legacyHeaders?: boolean;
}

export interface HeaderOptions extends HeaderModes {
  /** The instant the decision was made, epoch ms. Default `Date.now()`. */
  now?: number;
}

const STANDARD: readonly unknown[] = ['draft-6', 'draft-7', 'draft-8', false];

/**
 * Validates and defaults the header modes; `where` names the options object in errors (for
 * adapters: `rateLimit`). Other keys of `options` are ignored, so an adapter can pass its own.
 */
export function parseHeaderModes(where: string, options: unknown): Required<HeaderModes> {
  const raw = requireObject(where, options);
  const standardHeaders = raw.standardHeaders === undefined ? 'draft-8' : raw.standardHeaders;
  if (!STANDARD.includes(standardHeaders)) {
    throw new InvalidOptionTypeError(
      `${where}.standardHeaders must be one of 'draft-6', 'draft-7', 'draft-8', false, got ${show(standardHeaders)}`,
    );
  }
  const legacy = raw.legacyHeaders === undefined ? true : raw.legacyHeaders;
  if (typeof legacy !== 'boolean') {
    throw new InvalidOptionTypeError(`${where}.legacyHeaders must be a boolean, got ${show(legacy)}`);
  }
  return { standardHeaders: standardHeaders as StandardHeaders, legacyHeaders: legacy };
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
  rejectUnknownKeys('buildHeaders', raw, ['standardHeaders', 'legacyHeaders', 'now']);
  const modes = parseHeaderModes('buildHeaders', raw);
  return headersFor(decision, modes, raw.now === undefined ? Date.now() : nowOption(raw.now));
}

/** buildHeaders for modes already checked (the middleware checks its own once, at construction). */
export function headersFor(decision: Decision, modes: Required<HeaderModes>, now: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const quotas = quotasOf(decision, now);
  const binding = quotas[0];
  if (binding !== undefined) {
    if (modes.standardHeaders === 'draft-6') Object.assign(headers, draft6Headers(binding));
    if (modes.standardHeaders === 'draft-7') Object.assign(headers, draft7Headers(binding));
    if (modes.standardHeaders === 'draft-8') Object.assign(headers, draft8Headers(quotas));
    if (modes.legacyHeaders) Object.assign(headers, legacyHeaders(binding));
  }
  if (!decision.allowed) headers['Retry-After'] = String(retryAfterSeconds(decision.retryAfter));
  return headers;
}

function nowOption(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidOptionTypeError(
      `buildHeaders.now must be a finite number of epoch milliseconds, got ${show(value)}`,
    );
  }
  return value;
}
