import type { Decision, LayerResult } from './decision';
import type { PartitionKeyOf } from './partition-key';
import type { LayerCall } from './store';

/*
 * draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy` items `"name";q;w` (`qu` for
 * concurrency, `pk` when partition keys are on) and `RateLimit` items `"name";r;t`, where `r` is
 * the available quota and `t` the effective window: the seconds within which the client can use
 * no more than `r`, i.e. until more quota is made available. Per algorithm:
 *   denied (any algorithm)   the wait after which this request is allowed (= its Retry-After)
 *   fixedWindow              until the window ends (quota comes back all at once then)
 *   tokenBucket, leakyBucket,
 *   gcra                     until the next unit drips back: quota returns at limit/window
 *   slidingWindow,
 *   slidingLog               one unit at the policy's mean rate (window/limit), never past the
 *                            moment everything is forgotten: an estimate, since the exact moment
 *                            depends on when earlier requests came (the log's oldest entry, the
 *                            weight of the previous window), which the headers do not carry
 *   concurrency              no `t`: a slot comes back when a request ends, not with time
 * Integers are capped at 15 digits (RFC 9651); `t` is rounded up so a client that waits it out is
 * not early.
 */

/** A LimiterDecision carries the store calls it was charged with (a plain Decision has none: no `pk`). */
interface WithCalls {
  readonly calls?: readonly LayerCall[];
}

export function draft11Policies(
  results: readonly LayerResult[],
  binding: LayerResult,
  decision: Decision,
  pk: PartitionKeyOf | undefined,
): string {
  let list = policyItem(binding, keyOf(results, binding, decision), pk);
  for (let i = 0; i < results.length; i++) {
    const layer = results[i] as LayerResult;
    if (layer !== binding && layer.shadow !== true) list += `, ${policyItem(layer, callsOf(decision)?.[i]?.key, pk)}`;
  }
  return list;
}

export function draft11States(
  results: readonly LayerResult[],
  binding: LayerResult,
  now: number,
  decision: Decision,
  pk: PartitionKeyOf | undefined,
): string {
  let list = stateItem(binding, now, keyOf(results, binding, decision), pk);
  for (let i = 0; i < results.length; i++) {
    const layer = results[i] as LayerResult;
    if (layer !== binding && layer.shadow !== true)
      list += `, ${stateItem(layer, now, callsOf(decision)?.[i]?.key, pk)}`;
  }
  return list;
}

function policyItem(layer: LayerResult, key: string | undefined, pk: PartitionKeyOf | undefined): string {
  const quota = `"${layer.rule}";q=${int(layer.limit)}`;
  const item =
    layer.kind === 'concurrency'
      ? `${quota};qu="concurrent-requests"`
      : `${quota};w=${int(Math.max(1, Math.ceil(layer.window / 1000)))}`;
  return pk === undefined || key === undefined ? item : `${item};pk=:${pk(key)}:`;
}

function stateItem(layer: LayerResult, now: number, key: string | undefined, pk: PartitionKeyOf | undefined): string {
  let item = `"${layer.rule}";r=${int(Math.max(0, layer.remaining))}`;
  const window = effectiveWindowMs(layer, now);
  if (window !== undefined) item += `;t=${int(Math.ceil(window / 1000))}`;
  return pk === undefined || key === undefined ? item : `${item};pk=:${pk(key)}:`;
}

/**
 * §6: Retry-After never points earlier than the end of the effective window of a layer that has
 * nothing left (a retry before then would meet that layer empty). The decision's own wait, raised
 * to that when needed.
 */
export function draft11RetryAfterMs(decision: Decision, now: number): number {
  let wait = decision.retryAfter;
  for (const layer of decision.results) {
    if (layer.shadow || layer.remaining > 0) continue;
    const window = effectiveWindowMs(layer, now);
    if (window !== undefined && window > wait) wait = window;
  }
  return wait;
}

/** See the table above; undefined when the layer has no effective window to state. */
export function effectiveWindowMs(layer: LayerResult, now: number): number | undefined {
  if (!layer.allowed) return layer.retryAfter > 0 ? layer.retryAfter : undefined;
  if (layer.kind === 'concurrency') return undefined;
  const untilReset = Math.max(0, layer.resetAt - now);
  if (layer.kind === 'fixedWindow') return untilReset;
  const unit = layer.window / Math.max(1, layer.limit);
  if (layer.kind === 'slidingWindow' || layer.kind === 'slidingLog')
    return untilReset === 0 ? unit : Math.min(unit, untilReset);
  const used = layer.limit - Math.max(0, layer.remaining);
  // Nothing in use: whatever is spent now starts coming back one unit later.
  if (used <= 0 || untilReset === 0) return Math.min(unit, layer.window);
  return Math.min(untilReset, Math.max(0, untilReset - (used - 1) * unit));
}

/** The binding layer's key: results and calls are in the same order. */
function keyOf(results: readonly LayerResult[], binding: LayerResult, decision: Decision): string | undefined {
  const calls = callsOf(decision);
  return calls === undefined ? undefined : calls[results.indexOf(binding)]?.key;
}

function callsOf(decision: Decision): readonly LayerCall[] | undefined {
  return (decision as WithCalls).calls;
}

const MAX_SF_INTEGER = 999_999_999_999_999;

function int(value: number): number {
  return Math.min(value, MAX_SF_INTEGER);
}
