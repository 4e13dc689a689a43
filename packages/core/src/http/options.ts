import { timerOption } from '../duration';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../errors';
import { createLimiter } from '../limiter';
import { LIMITER_KEYS } from '../limiter-options';
import { functionOption, integerOption, oneOfOption, rejectUnknownKeys, requireObject } from '../validate';
import { parseHeaderModes } from '../headers/build-headers';
import { ipMatcher } from './ip-match';
import { shortFormRule } from './short-form';
import { claimStorePrefix, consoleWarning, onceWarner, WarningCode } from './warnings';
import type { Decision } from '../decision';
import type { Limiter } from '../limiter';
import type { StandardHeaders } from '../headers/build-headers';
import type { StoreErrorEvent } from '../resilience/options';
import type { FloodgateWarning } from './types';

type MaybeAsync<T> = T | Promise<T>;

/** The middleware's options after validation, with every default filled in. */
export interface HttpConfig<Req = unknown, Res = unknown, Handler = unknown> {
  limiter: Limiter<Req>;
  clock: () => number;
  cost: ((req: Req) => MaybeAsync<number>) | undefined;
  skip: ((req: Req) => MaybeAsync<boolean>) | undefined;
  allowed: ((req: Req, ip: string | undefined) => MaybeAsync<boolean>) | undefined;
  standardHeaders: StandardHeaders;
  legacyHeaders: boolean;
  statusCode: number;
  message: ((req: Req, decision: Decision) => MaybeAsync<string | object>) | undefined;
  handler: Handler | undefined;
  maxDelay: number | undefined;
  refundWhen: ((success: boolean) => boolean) | undefined;
  requestWasSuccessful: ((req: Req, res: Res, status: number | undefined) => MaybeAsync<boolean>) | undefined;
  failMode: 'local' | 'open' | 'closed';
  onStoreError: ((event: StoreErrorEvent) => unknown) | undefined;
  warn: (code: string, message: string) => void;
}

const OWN_KEYS = [
  'limit',
  'window',
  'cost',
  'skip',
  'allowList',
  'standardHeaders',
  'legacyHeaders',
  'statusCode',
  'message',
  'handler',
  'maxDelay',
  'skipFailedRequests',
  'skipSuccessfulRequests',
  'requestWasSuccessful',
  'onWarning',
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
): HttpConfig<Req, Res, Handler> {
  const raw = requireObject(where, options);
  rejectUnknownKeys(where, raw, [...OWN_KEYS, ...LIMITER_KEYS, ...adapterKeys]);
  const limiter = buildLimiter<Req>(where, raw);
  const onWarning = optionalFunction<(w: FloodgateWarning) => void>(where, raw, 'onWarning') ?? consoleWarning;
  const warn = onceWarner(onWarning);
  if (claimStorePrefix(limiter.store, limiter.prefix)) {
    warn(
      WarningCode.storeReuse,
      `another middleware instance already counts in the same store under prefix "${limiter.prefix}": requests passing both are counted twice; give each instance its own prefix`,
    );
  }
  return {
    limiter,
    clock: optionalFunction<() => number>(where, raw, 'clock') ?? Date.now,
    cost: optionalFunction(where, raw, 'cost'),
    skip: optionalFunction(where, raw, 'skip'),
    allowed: parseAllowList<Req>(where, raw.allowList),
    ...parseHeaderModes(where, raw),
    statusCode: raw.statusCode === undefined ? 429 : statusOption(`${where}.statusCode`, raw.statusCode),
    message: parseMessage<Req>(where, raw.message),
    handler: optionalFunction<Handler>(where, raw, 'handler'),
    maxDelay: raw.maxDelay === undefined ? undefined : timerOption(`${where}.maxDelay`, raw.maxDelay, 0),
    ...parseOutcomeOptions<Req, Res>(where, raw),
    failMode:
      raw.failMode === undefined
        ? 'local'
        : oneOfOption(`${where}.failMode`, raw.failMode, ['local', 'open', 'closed']),
    onStoreError: optionalFunction(where, raw, 'onStoreError'),
    warn,
  };
}

function buildLimiter<Req>(where: string, raw: Record<string, unknown>): Limiter<Req> {
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
  if (short) passed.limits = [shortFormRule(where, raw.limit, raw.window)];
  return createLimiter(passed as unknown as Parameters<typeof createLimiter<Req>>[0]);
}

function parseAllowList<Req>(where: string, value: unknown): HttpConfig<Req>['allowed'] {
  if (value === undefined) return undefined;
  if (typeof value === 'function') return (req) => (value as (req: Req) => MaybeAsync<boolean>)(req);
  if (!Array.isArray(value)) {
    throw new InvalidOptionTypeError(
      `${where}.allowList must be an array of IPs/CIDRs or a function, got ${show(value)}`,
    );
  }
  const matches = ipMatcher(`${where}.allowList`, value);
  return (_req, ip) => matches(ip);
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
