import { concurrency } from '../algorithms/concurrency';
import { fixedWindow } from '../algorithms/fixed-window';
import { gcra } from '../algorithms/gcra';
import { leakyBucket } from '../algorithms/leaky-bucket';
import { slidingLog } from '../algorithms/sliding-log';
import { slidingWindow } from '../algorithms/sliding-window';
import { tokenBucket } from '../algorithms/token-bucket';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { byApiKey } from '../keys/by-api-key';
import { byHeader } from '../keys/by-header';
import { byIp } from '../keys/by-ip';
import { byUser } from '../keys/by-user';
import { functionOption, oneOfOption, rejectUnknownKeys, requireObject } from '../base/validate';
import type { Algorithm } from '../algorithms/types';
import type { KeyFunction } from '../keys/context';
import type { LimitRule } from './types';

/*
 * A limits document: named rules as data (JSON), so operators can change limits without a deploy.
 * Everything a document can say maps onto a LimitRule built with the same factories as code, so
 * it is checked by the same code (and throws the same coded errors, with the document path in
 * front). What a document cannot say, because it is code, comes from DocumentOptions: who the user
 * is, which tenant a request belongs to, and (on createLimiter) which requests are critical.
 *
 *   { "rules": [ { "name": "api",
 *                  "key": { "source": "apiKey" },
 *                  "algorithm": { "type": "tokenBucket", "capacity": 50, "refillRate": 5, "reserve": 0.2 },
 *                  "shadow": false, "blockDuration": "5m", "escalate": { "period": "1h", "max": "1h" },
 *                  "tenants": { "acme": { "type": "tokenBucket", "capacity": 500, "refillRate": 50 } } } ] }
 *
 * The JSON Schema of this shape is published by @floodgate/config (dist/limits.schema.json, and its limitsSchema export).
 */

/** What a document needs from code. */
export interface DocumentOptions<Req = unknown> {
  /** The user id of a request, for rules keyed `{ "source": "user" }` (e.g. `(req) => req.user?.id`). */
  user?: (req: Req) => string | undefined | Promise<string | undefined>;
  /**
   * The tenant of a request, for rules with `tenants` overrides. Must come from something the
   * client cannot choose (its authenticated account), never from a header it sends.
   */
  tenant?: (req: Req) => string | undefined;
  /** Names the document in errors. Default `'limits document'`. */
  source?: string;
}

const FACTORIES: Record<string, (options: never) => Algorithm> = {
  fixedWindow,
  slidingWindow,
  slidingLog,
  tokenBucket,
  leakyBucket,
  gcra,
  concurrency,
};
export const DOCUMENT_ALGORITHMS = Object.keys(FACTORIES);
export const DOCUMENT_KEY_SOURCES = ['ip', 'user', 'header', 'apiKey', 'global'];
const DOCUMENT_KEYS = ['$schema', 'version', 'rules'];
const RULE_KEYS = ['name', 'key', 'scope', 'algorithm', 'shadow', 'blockDuration', 'escalate', 'lease', 'tenants'];
/** Bounds what one document can make the limiter hold per request. */
const MAX_RULES = 64;
const MAX_TENANTS = 10_000;

/**
 * Turns a limits document into createLimiter's `limits`. Throws the coded errors of the code
 * options (ERR_FLOODGATE_INVALID_OPTION), each naming the path in the document. Pure: no I/O.
 *
 * @example
 * const limits = rulesFromDocument(JSON.parse(text), { user: (req) => req.user?.id });
 */
export function rulesFromDocument<Req = unknown>(
  document: unknown,
  options: DocumentOptions<Req> = {},
): LimitRule<Req>[] {
  const root = options.source ?? 'limits document';
  const raw = requireObject(root, document);
  rejectUnknownKeys(root, raw, DOCUMENT_KEYS);
  if (raw.version !== undefined && raw.version !== 1) {
    throw new InvalidOptionError(`${root}.version must be 1 (the only version so far), got ${show(raw.version)}`);
  }
  const rules = raw.rules;
  if (!Array.isArray(rules) || rules.length === 0 || rules.length > MAX_RULES) {
    throw new InvalidOptionTypeError(`${root}.rules must be an array of 1 to ${MAX_RULES} rules, got ${show(rules)}`);
  }
  const user =
    options.user === undefined
      ? undefined
      : functionOption<NonNullable<DocumentOptions<Req>['user']>>(`${root}: options.user`, options.user);
  const tenant =
    options.tenant === undefined
      ? undefined
      : functionOption<NonNullable<DocumentOptions<Req>['tenant']>>(`${root}: options.tenant`, options.tenant);
  return rules.map((entry: unknown, index) => ruleOf(`${root}.rules[${index}]`, entry, user, tenant));
}

function ruleOf<Req>(
  where: string,
  entry: unknown,
  user: DocumentOptions<Req>['user'],
  tenant: DocumentOptions<Req>['tenant'],
): LimitRule<Req> {
  const raw = requireObject(where, entry);
  rejectUnknownKeys(where, raw, RULE_KEYS);
  const base = algorithmOf(`${where}.algorithm`, raw.algorithm);
  const rule: Record<string, unknown> = {
    name: raw.name,
    key: keyOf(`${where}.key`, raw.key, user),
    algorithm: raw.tenants === undefined ? base : tenantAlgorithm(`${where}.tenants`, raw.tenants, base, tenant),
  };
  // Passed on as they are: createLimiter checks them as it checks code (names, durations, scope).
  for (const name of ['scope', 'shadow', 'blockDuration', 'escalate', 'lease'])
    if (raw[name] !== undefined) rule[name] = raw[name];
  return rule as unknown as LimitRule<Req>;
}

function keyOf<Req>(where: string, value: unknown, user: DocumentOptions<Req>['user']): KeyFunction<Req> {
  const raw = requireObject(where, value);
  const source = oneOfOption(`${where}.source`, raw.source, DOCUMENT_KEY_SOURCES);
  const { source: _, ...options } = raw;
  return withPath(where, () => {
    switch (source) {
      case 'ip':
        return byIp(options) as KeyFunction<Req>;
      case 'apiKey':
        return byApiKey(options) as KeyFunction<Req>;
      case 'header': {
        rejectUnknownKeys(where, options, ['name', 'hash']);
        if (typeof options.name !== 'string') {
          throw new InvalidOptionTypeError(`${where}.name must be the header's name, got ${show(options.name)}`);
        }
        return byHeader(
          options.name,
          options.hash === undefined ? {} : { hash: options.hash as boolean },
        ) as KeyFunction<Req>;
      }
      case 'global':
        rejectUnknownKeys(where, options, []);
        // One key for every request: a ceiling shared by all clients.
        return (() => 'all') as KeyFunction<Req>;
      default: {
        rejectUnknownKeys(where, options, []);
        if (user === undefined) {
          throw new InvalidOptionError(
            `${where}.source 'user' needs the user option in code (e.g. user: (req) => req.user?.id): a document cannot say who is logged in`,
          );
        }
        return byUser(user);
      }
    }
  });
}

function algorithmOf(where: string, value: unknown): Algorithm {
  const raw = requireObject(where, value);
  const type = oneOfOption(`${where}.type`, raw.type, DOCUMENT_ALGORITHMS);
  const { type: _, ...options } = raw;
  return withPath(where, () => (FACTORIES[type] as (options: unknown) => Algorithm)(options));
}

/** Per-tenant overrides: the tenant's algorithm when it has one, else the rule's. */
function tenantAlgorithm<Req>(
  where: string,
  value: unknown,
  base: Algorithm,
  tenant: DocumentOptions<Req>['tenant'],
): (req: Req) => Algorithm {
  const raw = requireObject(where, value);
  const names = Object.keys(raw);
  if (names.length > MAX_TENANTS) {
    throw new InvalidOptionError(`${where} may name at most ${MAX_TENANTS} tenants, got ${names.length}`);
  }
  if (tenant === undefined) {
    throw new InvalidOptionError(
      `${where} needs the tenant option in code (e.g. tenant: (req) => req.user?.orgId): a document cannot say which tenant a request is from`,
    );
  }
  const overrides = new Map<string, Algorithm>();
  for (const name of names) overrides.set(name, algorithmOf(`${where}.${name}`, raw[name]));
  return (req) => {
    const id = tenant(req);
    return (id === undefined ? undefined : overrides.get(id)) ?? base;
  };
}

/** Runs a factory, putting the document path in front of its error (same class, same code). */
function withPath<T>(where: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof Error) || error.message.startsWith(where)) throw error;
    if (error instanceof InvalidOptionTypeError) throw new InvalidOptionTypeError(`${where}: ${error.message}`);
    if (error instanceof InvalidOptionError) throw new InvalidOptionError(`${where}: ${error.message}`);
    throw error;
  }
}
