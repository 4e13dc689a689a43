import { retryAfterSeconds } from './headers';
import type { Decision } from '../limiter/decision';
import type { LayerCall } from '../store/store';

const PROBLEM_TYPES = 'https://iana.org/assignments/http-problem-types';

/** An RFC 9457 problem details object for a 429 (or a 503 when the limiter could not decide). */
export interface ProblemDetails {
  type: string;
  title: string;
  /** 429 (or the `statusCode` the app chose), 503 when the limiter could not decide. */
  status: number;
  detail: string;
  /** Whole seconds, as in the Retry-After header; absent when waiting would not help. */
  retryAfter?: number;
  /** The layers that denied the request (for a 503: every layer that could not be decided). */
  'violated-policies'?: string[];
}

/** What an adapter sends for a denied request. */
export interface ProblemResponse {
  status: number;
  contentType: string;
  body: string;
}

/** The status of a denied decision: 503 when the limiter could not decide, else `status`. */
export function deniedStatus(decision: Decision, status = 429): number {
  return decision.unavailable === true ? 503 : status;
}

/**
 * The RFC 9457 body for a denied decision, with the draft's problem types:
 * `#quota-exceeded` (429) when a layer's quota is spent; `#abnormal-usage-detected` (429) when a
 * layer with a penalty (`blockDuration`) denied, i.e. the client is blocked for its usage; and,
 * when the store was out of reach and `failMode: 'closed'` denied (`decision.unavailable`), a 503
 * `#temporary-reduced-capacity`. Each lists the layers concerned in `violated-policies`.
 *
 * @example
 * const problem = buildProblem(decision); // { status: 429, retryAfter: 30, 'violated-policies': ['user'], ... }
 */
export function buildProblem(decision: Decision, status = 429): ProblemDetails {
  if (decision.unavailable === true) {
    const retryAfter = retryAfterSeconds(decision.retryAfter);
    return {
      type: `${PROBLEM_TYPES}#temporary-reduced-capacity`,
      title: 'Service Unavailable',
      status: deniedStatus(decision),
      detail: `The service cannot accept requests right now; try again in ${waitOf(retryAfter)}.`,
      retryAfter,
      // Every enforced layer: none of them could be decided.
      'violated-policies': decision.results.filter((layer) => !layer.shadow).map((layer) => layer.rule),
    };
  }
  const violated = deniedLayers(decision);
  if (decision.retryAfter <= 0) {
    return {
      type: `${PROBLEM_TYPES}#quota-exceeded`,
      title: 'Too Many Requests',
      status,
      detail:
        'This request cannot be admitted: it asks for more than the limit allows at once, or its cost could not be worked out. Retrying it will not help.',
      'violated-policies': violated,
    };
  }
  const retryAfter = retryAfterSeconds(decision.retryAfter);
  if (penalised(decision)) {
    return {
      type: `${PROBLEM_TYPES}#abnormal-usage-detected`,
      title: 'Abnormal Usage Detected',
      status,
      detail: `Requests from this client are blocked for exceeding the limit; try again in ${waitOf(retryAfter)}.`,
      retryAfter,
      'violated-policies': violated,
    };
  }
  return {
    type: `${PROBLEM_TYPES}#quota-exceeded`,
    title: 'Too Many Requests',
    status,
    detail: `Too many requests; try again in ${waitOf(retryAfter)}.`,
    retryAfter,
    'violated-policies': violated,
  };
}

function waitOf(seconds: number): string {
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

function deniedLayers(decision: Decision): string[] {
  return decision.results.filter((layer) => !layer.allowed && !layer.shadow).map((layer) => layer.rule);
}

/**
 * True when a denying layer carries a penalty: such a layer denies only while its key is blocked
 * (the denial that earns the penalty is answered with the block already). The calls are the
 * limiter's (a LimiterDecision's); a plain Decision has none and gets `#quota-exceeded`.
 */
function penalised(decision: Decision): boolean {
  const calls = (decision as { calls?: readonly LayerCall[] }).calls;
  if (calls === undefined) return false;
  const results = decision.results;
  for (let i = 0; i < results.length; i++) {
    const layer = results[i];
    if (layer !== undefined && !layer.allowed && !layer.shadow && calls[i]?.penalty !== undefined) return true;
  }
  return false;
}

/**
 * The response for a denied decision, chosen by the request's `Accept` header:
 * `application/problem+json` when it is absent or accepts JSON (`application/problem+json`,
 * `application/json` or a wildcard with q > 0), otherwise the detail sentence as `text/plain`.
 *
 * @example
 * const { status, contentType, body } = negotiateProblem(req.headers.accept, decision);
 */
export function negotiateProblem(accept: string | undefined, decision: Decision, status = 429): ProblemResponse {
  if (acceptsJson(accept)) {
    return {
      status: deniedStatus(decision, status),
      contentType: 'application/problem+json',
      body: problemJson(decision, status),
    };
  }
  const problem = buildProblem(decision, status);
  return { status: problem.status, contentType: 'text/plain; charset=utf-8', body: problem.detail };
}

// The last JSON body and what it was built from: a client hammering a spent key gets the same body
// for a whole second, and building it (an object, then JSON.stringify) is most of a 429's own cost.
let lastShape = '';
let lastJson = '';

/** buildProblem as JSON, reused while the answer is the same as the last one's. */
export function problemJson(decision: Decision, status: number): string {
  if (decision.unavailable === true) return JSON.stringify(buildProblem(decision, status));
  const shape = problemShape(decision, status);
  if (shape !== lastShape) {
    lastJson = JSON.stringify(buildProblem(decision, status));
    lastShape = shape;
  }
  return lastJson;
}

/** Everything buildProblem reads, as a string no two different bodies share (names are length-prefixed). */
function problemShape(decision: Decision, status: number): string {
  let shape =
    decision.retryAfter <= 0
      ? `r${status}`
      : `${penalised(decision) ? 'p' : 'q'}${status}/${retryAfterSeconds(decision.retryAfter)}`;
  const results = decision.results;
  for (let i = 0; i < results.length; i++) {
    const layer = results[i] as Decision['results'][number];
    if (!layer.allowed && !layer.shadow) shape += `|${layer.rule.length}:${layer.rule}`;
  }
  return shape;
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Whether a request with this `Accept` gets the problem details as JSON (else the detail sentence as text). */
export function acceptsJson(accept: string | undefined): boolean {
  if (typeof accept !== 'string' || accept.trim() === '') return true;
  const ranges = accept.split(',').map(parseMediaRange);
  return qualityOf(ranges, 'application', 'problem+json') > 0 || qualityOf(ranges, 'application', 'json') > 0;
}

function parseMediaRange(text: string): MediaRange {
  const [range = '', ...params] = text.split(';');
  const [type = '', subtype = ''] = range.trim().toLowerCase().split('/');
  let q = 1;
  for (const param of params) {
    const [name = '', value = ''] = param.split('=');
    if (name.trim().toLowerCase() === 'q') q = Number(value.trim());
  }
  return { type, subtype, q: Number.isFinite(q) ? q : 0 };
}

/** RFC 9110 §12.5.1: the most specific range that matches decides the quality. */
function qualityOf(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best = { specificity: -1, q: 0 };
  for (const range of ranges) {
    const specificity = specificityOf(range, type, subtype);
    if (specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best.q;
}

function specificityOf(range: MediaRange, type: string, subtype: string): number {
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  if (range.type === '*' && range.subtype === '*') return 0;
  return -1;
}
