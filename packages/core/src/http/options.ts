import { DEFAULTS } from '../base/defaults';
import { timerOption } from '../base/duration';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { LimiterEngine } from '../limiter/engine';
import { parseHeaderModes } from './headers';
import { limiterOf } from '../limiter/limiter';
import { LIMITER_KEYS, parseLimiterOptions } from '../limiter/options';
import { functionOption, integerOption, priorityOption, rejectUnknownKeys, requireObject } from '../base/validate';
import { WarningCode } from '../base/warnings';
import { splitAdaptive } from './adaptive-layer';
import { ipMatcher } from './ip-match';
import { shortFormRule } from './short-form';
import { claimStorePrefix } from './warnings';
import type { AdaptiveConcurrency } from '../adaptive';
import type { Decision } from '../limiter/decision';
import type { CheckedHeaderModes } from './headers';
import type { Limiter, LimiterOptions, Priority, PriorityFunction } from '../limiter/types';
import type { FailMode } from '../resilience/options';
import type { Warn } from '../base/warnings';

type MaybeAsync<T> = T | Promise<T>;

/** The middleware's options after validation, with every default filled in. */
export interface HttpConfig<Req = unknown, Res = unknown, Handler = unknown> {
  /** The limiter's machinery; `limiter` is its public face (the middleware's `.limiter`). */
  engine: LimiterEngine<Req>;
  limiter: Limiter<Req>;
  failMode: FailMode;
  cost: ((req: Req) => MaybeAsync<number>) | undefined;
  skip: ((req: Req) => MaybeAsync<boolean>) | undefined;
  allowed: ((req: Req, ip: string | undefined) => MaybeAsync<boolean>) | undefined;
  /** True when `allowed` reads the client address (an allowList of addresses). */
  allowedByIp: boolean;
  modes: CheckedHeaderModes;
  statusCode: number;
  message: ((req: Req, decision: Decision) => MaybeAsync<string | object>) | undefined;
  handler: Handler | undefined;
  maxDelay: number | undefined;
  /** `priority` given as a word: every request this middleware decides has it. */
  priority: Priority | undefined;
  /** The adaptiveConcurrency() layer among `limits`, checked before the rules charge anything. */
  adaptive: AdaptiveConcurrency<Req> | undefined;
  /** Which requests may use the adaptive layer's reserve when no word says it: its function, else the middleware's. */
  adaptivePriority: PriorityFunction<Req> | undefined;
  refundWhen: ((success: boolean) => boolean) | undefined;
  requestWasSuccessful: ((req: Req, res: Res, status: number | undefined) => MaybeAsync<boolean>) | undefined;
  warn: Warn;
}

const OWN_KEYS = [
  'limit',
  'window',
  'cost',
  'skip',
  'allowList',
  'standardHeaders',
  'legacyHeaders',
  'partitionKey',
  'statusCode',
  'message',
  'handler',
  'maxDelay',
  'skipFailedRequests',
  'skipSuccessfulRequests',
  'requestWasSuccessful',
] as const;
/** Handed to createLimiter unchanged; it validates them. */
/**
 * Validates middleware options once, at construction. `where` names the middleware in errors
 * (`rateLimit`, `floodgate`, `rateLimiter`); `adapterKeys` are options the adapter handled itself.
 */
export function parseHttpOptions<Req, Res, Handler>(
  where: string,
  options: unknown,
  adapterKeys: readonly string[] = [],
  counters?: SharedCounters<Req>,
): HttpConfig<Req, Res, Handler> {
  const raw = requireObject(where, options);
  rejectUnknownKeys(where, raw, [...OWN_KEYS, ...LIMITER_KEYS, ...adapterKeys]);
  const { adaptive, rest } = splitAdaptive<Req>(where, raw.limits);
  const rules = rest === raw.limits ? raw : { ...raw, limits: rest };
  const engine =
    counters?.reuse === true ? counters.engine : buildEngine<Req>(where, rules, counters, adaptive !== undefined);
  const warn = engine.warn;
  if (counters === undefined && claimStorePrefix(engine.store, engine.prefix)) {
    warn(
      WarningCode.storeReuse,
      `another middleware instance already counts in the same store under prefix "${engine.prefix}": requests passing both are counted twice; give each instance its own prefix`,
    );
  }
  const allowList = parseAllowList<Req>(where, raw.allowList);
  return {
    engine,
    limiter: limiterOf(engine),
    failMode: engine.failMode,
    cost: optionalFunction(where, raw, 'cost'),
    skip: optionalFunction(where, raw, 'skip'),
    allowed: allowList?.allowed,
    allowedByIp: allowList?.byIp === true,
    modes: parseHeaderModes(where, raw),
    statusCode:
      raw.statusCode === undefined ? DEFAULTS.statusCode : statusOption(`${where}.statusCode`, raw.statusCode),
    message: parseMessage<Req>(where, raw.message),
    handler: optionalFunction<Handler>(where, raw, 'handler'),
    maxDelay: raw.maxDelay === undefined ? undefined : timerOption(`${where}.maxDelay`, raw.maxDelay, 0),
    priority: fixedPriority(raw.priority) ? priorityOption(`${where}.priority`, raw.priority) : undefined,
    adaptive,
    adaptivePriority:
      adaptive?.priority ?? (typeof raw.priority === 'function' ? (raw.priority as PriorityFunction<Req>) : undefined),
    ...parseOutcomeOptions<Req, Res>(where, raw),
    warn,
  };
}

/**
 * Counters a route shares with its app (Fastify `config.rateLimit` that changes only how requests
 * are answered): the app's engine itself (`reuse`), or a new one over its store and prefix.
 */
export interface SharedCounters<Req> {
  engine: LimiterEngine<Req>;
  reuse: boolean;
}

/**
 * The limiter of a middleware. One that shares an app's counters with limiter options of its own
 * (a route's hooks or failMode) runs over the app's store, prefix and clock.
 */
function buildEngine<Req>(
  where: string,
  raw: Record<string, unknown>,
  counters: SharedCounters<Req> | undefined,
  adaptive: boolean,
) {
  const passed = limiterOptions(where, raw) as unknown as Record<string, unknown>;
  if (counters !== undefined) {
    passed.store = counters.engine.store;
    passed.prefix = counters.engine.prefix;
    passed.clock = undefined;
  }
  const config = parseLimiterOptions<Req>(passed as unknown as LimiterOptions<Req>, adaptive);
  if (counters !== undefined) config.clock = counters.engine.clock;
  return new LimiterEngine(config);
}

/** createLimiter's options out of the middleware's: the short form becomes one `ip` layer. */
function limiterOptions(where: string, raw: Record<string, unknown>): LimiterOptions<unknown> {
  const short = raw.limit !== undefined || raw.window !== undefined;
  if (short && raw.limits !== undefined) {
    throw new InvalidOptionTypeError(
      `${where}: give either { limit, window } (short form) or limits (full form), not both`,
    );
  }
  if (!short && raw.limits === undefined) {
    throw new InvalidOptionTypeError(`${where}: give { limit, window } (short form) or limits, got neither`);
  }
  const passed: Record<string, unknown> = {};
  for (const key of LIMITER_KEYS) if (raw[key] !== undefined) passed[key] = raw[key];
  // A priority said as a word is the middleware's to give (the limiter takes only a function).
  if (fixedPriority(raw.priority)) passed.priority = undefined;
  if (short) passed.limits = [shortFormRule(where, raw.limit, raw.window)];
  return passed as unknown as LimiterOptions<unknown>;
}

/**
 * True when `priority` is given as a word rather than a function: `'critical'` for a route that is
 * critical. Any string counts, so that a misspelt one is refused by name rather than by type.
 */
export function fixedPriority(value: unknown): boolean {
  return typeof value === 'string';
}

function parseAllowList<Req>(
  where: string,
  value: unknown,
): { allowed: NonNullable<HttpConfig<Req>['allowed']>; byIp: boolean } | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'function') {
    const allowed = value as (req: Req) => MaybeAsync<boolean>;
    return { allowed: (req) => allowed(req), byIp: false };
  }
  if (!Array.isArray(value)) {
    throw new InvalidOptionTypeError(
      `${where}.allowList must be an array of IPs/CIDRs or a function, got ${show(value)}`,
    );
  }
  const matches = ipMatcher(`${where}.allowList`, value);
  return { allowed: (_req, ip) => matches(ip), byIp: true };
}

function statusOption(name: string, value: unknown): number {
  const status = integerOption(name, value, 400);
  if (status > 599)
    throw new InvalidOptionError(`${name} must be an HTTP error status from 400 to 599, got ${show(value)}`);
  return status;
}

function parseMessage<Req>(where: string, value: unknown): HttpConfig<Req>['message'] {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return value as HttpConfig<Req>['message'];
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) return () => value;
  throw new InvalidOptionTypeError(
    `${where}.message must be a string, a JSON object or a function, got ${show(value)}`,
  );
}

function parseOutcomeOptions<Req, Res>(where: string, raw: Record<string, unknown>) {
  const skipFailed = optionalBoolean(where, raw, 'skipFailedRequests') ?? false;
  const skipSuccessful = optionalBoolean(where, raw, 'skipSuccessfulRequests') ?? false;
  const custom = optionalFunction<(req: Req, res: Res) => MaybeAsync<boolean>>(where, raw, 'requestWasSuccessful');
  const refundWhen =
    skipFailed || skipSuccessful ? (success: boolean) => (success ? skipSuccessful : skipFailed) : undefined;
  const requestWasSuccessful = (req: Req, res: Res, status: number | undefined): MaybeAsync<boolean> => {
    if (status === undefined) return false;
    return custom ? custom(req, res) : status < 400;
  };
  return { refundWhen, requestWasSuccessful };
}

function optionalFunction<F>(where: string, raw: Record<string, unknown>, key: string): F | undefined {
  return raw[key] === undefined ? undefined : functionOption<F>(`${where}.${key}`, raw[key]);
}

function optionalBoolean(where: string, raw: Record<string, unknown>, key: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new InvalidOptionTypeError(`${where}.${key} must be true or false, got ${show(value)}`);
}
