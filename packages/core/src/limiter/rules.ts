import { isAdaptiveLayer } from '../adaptive/adaptive-concurrency';
import { timerOption, windowOption } from '../base/duration';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import {
  booleanOption,
  functionOption,
  integerOption,
  nameOption,
  oneOfOption,
  rejectUnknownKeys,
  requireObject,
} from '../base/validate';
import { algorithmProblem } from '../algorithms/shape';
import type { Algorithm } from '../algorithms/types';
import { defaultScope } from '../keys/scope';
import type { KeyFunction } from '../keys/context';
import type { KeyScope } from '../keys/scope';
import type { AlgorithmFunction, LimitRule, PriorityFunction } from './types';
import type { Penalty } from '../store/store';

/** A lease as the engine uses it: units per store call, and how long they may be handed out (ms). */
export interface LeaseConfig {
  size: number;
  ttl: number;
}

/** A rule checked once, with the limiter-wide defaults applied. */
export interface CompiledRule<Req = unknown> {
  readonly name: string;
  readonly key: KeyFunction<Req>;
  /** Whose key it is: what one request's controls and penalties may touch (see LimitRule.scope). */
  readonly scope: KeyScope;
  /** The algorithm, when it is the same for every request. */
  readonly algorithm: Algorithm | undefined;
  /** Otherwise the function that picks it per request. */
  readonly algorithmOf: AlgorithmFunction<Req> | undefined;
  readonly shadow: boolean;
  readonly priority: PriorityFunction<Req> | undefined;
  /** True when `priority` is the rule's own (a call's or route's priority then leaves it alone). */
  readonly ownPriority: boolean;
  readonly penalty: Penalty | undefined;
  readonly lease: LeaseConfig | undefined;
}

const RULE_KEYS = ['name', 'key', 'scope', 'algorithm', 'shadow', 'priority', 'blockDuration', 'escalate', 'lease'];

/** Kinds whose units can be taken ahead and given back later without changing what they admit. */
const LEASABLE = new Set(['fixedWindow', 'tokenBucket', 'gcra', 'leakyBucket']);

/** Checks createLimiter's `limits`; `shadow` and `priority` are the limiter-wide defaults. */
export function parseRules<Req>(
  value: unknown,
  shadow: boolean,
  priority: PriorityFunction<Req> | undefined,
  allowNone = false,
): CompiledRule<Req>[] {
  if (!Array.isArray(value) || (value.length === 0 && !allowNone)) {
    throw new InvalidOptionTypeError(`createLimiter.limits must be a non-empty array of rules, got ${show(value)}`);
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    const where = `createLimiter.limits[${index}]`;
    if (isAdaptiveLayer(entry)) {
      throw new InvalidOptionTypeError(
        `${where} is adaptiveConcurrency(), a per-process layer that the HTTP middleware runs (rateLimit, floodgate, rateLimiter): give it in the middleware's limits`,
      );
    }
    const rule = requireObject(where, entry) as Partial<Record<keyof LimitRule, unknown>>;
    rejectUnknownKeys(where, rule, RULE_KEYS);
    const name = nameOption(`${where}.name`, rule.name);
    if (seen.has(name)) {
      throw new InvalidOptionError(`${where}.name ${show(name)} is used by another rule; names must be unique`);
    }
    seen.add(name);
    const algorithm = rule.algorithm;
    const problem = typeof algorithm === 'function' ? undefined : algorithmProblem(algorithm);
    if (problem !== undefined) {
      throw new InvalidOptionTypeError(
        `${where}.algorithm must be made by an algorithm factory such as slidingWindow({ limit, window }), or be a function of the request returning one, got ${show(algorithm)} (${problem})`,
      );
    }
    const fixed = typeof algorithm === 'function' ? undefined : (algorithm as Algorithm);
    const lease = rule.lease === undefined ? undefined : parseLease(`${where}.lease`, rule.lease, fixed);
    if (lease !== undefined && fixed === undefined) {
      throw new InvalidOptionError(
        `${where}.lease needs a fixed algorithm: a lease is taken on one key, in one algorithm's units`,
      );
    }
    const key = functionOption<KeyFunction<Req>>(`${where}.key`, rule.key);
    const scope =
      rule.scope === undefined
        ? defaultScope(key)
        : oneOfOption<KeyScope>(`${where}.scope`, rule.scope, ['client', 'shared']);
    const penalty = parsePenalty(where, rule.blockDuration, rule.escalate);
    if (penalty !== undefined && scope === 'shared') throw sharedPenalty(where, name, rule.scope === undefined);
    return {
      name,
      key,
      scope,
      algorithm: fixed,
      algorithmOf: fixed === undefined ? (algorithm as AlgorithmFunction<Req>) : undefined,
      shadow: rule.shadow === undefined ? shadow : booleanOption(`${where}.shadow`, rule.shadow),
      priority:
        rule.priority === undefined
          ? priority
          : functionOption<PriorityFunction<Req>>(`${where}.priority`, rule.priority),
      ownPriority: rule.priority !== undefined,
      penalty,
      lease,
    };
  });
}

/**
 * A penalty punishes one client for its own requests. On a key many clients share, whoever asks
 * when the shared quota runs out would shut everyone out for the block: refused at construction.
 */
function sharedPenalty(where: string, name: string, defaulted: boolean): InvalidOptionError {
  const why = defaulted
    ? `its key is not byIp(), byUser() or byApiKey(), so rule "${name}" counts as shared by many clients (scope: 'shared')`
    : `rule "${name}" has scope: 'shared'`;
  return new InvalidOptionError(
    `${where}.blockDuration: ${why}, and a penalty there would block every client that shares the key. Put the penalty on a per-client rule, or give ${where}.scope: 'client' if this key identifies one client`,
  );
}

function parsePenalty(where: string, blockDuration: unknown, escalate: unknown): Penalty | undefined {
  if (blockDuration === undefined) {
    if (escalate !== undefined) throw new InvalidOptionError(`${where}.escalate needs ${where}.blockDuration`);
    return undefined;
  }
  const duration = timerOption(`${where}.blockDuration`, blockDuration);
  if (escalate === undefined) return { duration, period: 0, max: duration };
  const raw = requireObject(`${where}.escalate`, escalate);
  rejectUnknownKeys(`${where}.escalate`, raw, ['period', 'max']);
  const period = windowOption(`${where}.escalate.period`, raw.period);
  const max = timerOption(`${where}.escalate.max`, raw.max);
  if (max < duration) {
    throw new InvalidOptionError(
      `${where}.escalate.max must be at least blockDuration (${duration} ms), got ${show(raw.max)}`,
    );
  }
  return { duration, period, max };
}

function parseLease(where: string, value: unknown, algorithm: Algorithm | undefined): LeaseConfig {
  const raw = requireObject(where, value);
  rejectUnknownKeys(where, raw, ['size', 'ttl']);
  const size = integerOption(`${where}.size`, raw.size, 2);
  const ttl = timerOption(`${where}.ttl`, raw.ttl);
  if (algorithm !== undefined) {
    const shaping = algorithm.kind === 'leakyBucket' && algorithm.options.mode === 'shaping';
    if (!LEASABLE.has(algorithm.kind) || shaping) {
      throw new InvalidOptionError(
        `${where} works with fixedWindow, tokenBucket, gcra and leakyBucket (policing), got ${algorithm.kind}${shaping ? ' (shaping)' : ''}: units given back late would count differently there`,
      );
    }
    if (size > algorithm.maxCost) {
      throw new InvalidOptionError(`${where}.size must be at most the limit (${algorithm.maxCost}), got ${size}`);
    }
  }
  return { size, ttl };
}
