import type { Decision, LayerResult } from '../limiter/decision';
import type { PartitionKeyOf } from './partition-key';
import type { LayerCall } from '../store/store';

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

/**
 * Sets `RateLimit-Policy` and `RateLimit` for draft-11: one item per layer, the binding layer
 * first, shadow layers left out. `pk` (when on) is derived once per layer for both fields.
 */
export function writeDraft11<Res>(
  decision: Decision,
  binding: LayerResult,
  now: number,
  pk: PartitionKeyOf | undefined,
  res: Res,
  set: (res: Res, name: string, value: string) => void,
): void {
  const results = decision.results;
  const calls = pk === undefined ? undefined : callsOf(decision);
  const bindingKey = calls?.[results.indexOf(binding)]?.key;
  const bindingPk = pk === undefined || bindingKey === undefined ? '' : `;pk=:${pk(bindingKey)}:`;
  let policies = policyItem(binding) + bindingPk;
  let states = stateItem(binding, now) + bindingPk;
  for (let i = 0; i < results.length; i++) {
    const layer = results[i] as LayerResult;
    if (layer === binding || layer.shadow === true) continue;
    const key = calls?.[i]?.key;
    const partition = pk === undefined || key === undefined ? '' : `;pk=:${pk(key)}:`;
    policies += `, ${policyItem(layer)}${partition}`;
    states += `, ${stateItem(layer, now)}${partition}`;
  }
  set(res, 'RateLimit-Policy', policies);
  set(res, 'RateLimit', states);
}

function policyItem(layer: LayerResult): string {
  const quota = `"${layer.rule}";q=${int(layer.limit)}`;
  return layer.kind === 'concurrency'
    ? `${quota};qu="concurrent-requests"`
    : `${quota};w=${int(Math.max(1, Math.ceil(layer.window / 1000)))}`;
}

function stateItem(layer: LayerResult, now: number): string {
  const item = `"${layer.rule}";r=${int(Math.max(0, layer.remaining))}`;
  const window = effectiveWindowMs(layer, now);
  return window === undefined ? item : `${item};t=${int(Math.ceil(window / 1000))}`;
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

function callsOf(decision: Decision): readonly LayerCall[] | undefined {
  return (decision as WithCalls).calls;
}

const MAX_SF_INTEGER = 999_999_999_999_999;

function int(value: number): number {
  return Math.min(value, MAX_SF_INTEGER);
}
