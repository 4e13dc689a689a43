import { isAlgorithm } from '../algorithms/shape';
import { InvalidOptionTypeError, show } from '../base/errors';
import { apiKeyFunction, byApiKey, parseByApiKeyOptions } from '../keys/by-api-key';
import { byIp, ipKeyFunction, parseByIpOptions } from '../keys/by-ip';
import { byUser } from '../keys/by-user';
import { functionOption, rejectUnknownKeys, requireObject } from '../base/validate';
import type { Algorithm } from '../algorithms/types';
import type { ByApiKeyOptions } from '../keys/by-api-key';
import type { ByIpOptions } from '../keys/by-ip';
import type { UserId } from '../keys/by-user';
import type { LimitRule } from './types';

/** The `ip` layer: an algorithm, or an algorithm with byIp's options. */
export type IpLayer = Algorithm | ({ algorithm: Algorithm } & ByIpOptions);

/** The `user` layer: how to find the user's id on the framework's request, and the algorithm. */
export interface UserLayer<Req> {
  id: (req: Req) => UserId | Promise<UserId>;
  algorithm: Algorithm;
}

/** The `apiKey` layer: an algorithm, or an algorithm with byApiKey's options. */
export type ApiKeyLayer = Algorithm | ({ algorithm: Algorithm } & ByApiKeyOptions);

export interface LayeredOptions<Req = unknown> {
  /** Per client address, keyed byIp(). */
  ip?: IpLayer;
  /** Per signed-in user, keyed byUser(id); anonymous requests skip it. */
  user?: UserLayer<Req>;
  /** Per API key, keyed byApiKey(); requests without a key skip it. */
  apiKey?: ApiKeyLayer;
}

/**
 * The layered policy in one call: rules named `ip`, `user` and `apiKey` (in that order, only the
 * ones given) for createLimiter's or an adapter's `limits`. A request passes only if every layer
 * that applies allows it, and a layer that denies charges no other layer.
 *
 * @example
 * const limiter = createLimiter({
 *   limits: layered({
 *     ip: slidingWindow({ limit: 300, window: '1m' }),
 *     user: { id: (req: { user?: { id: string } }) => req.user?.id, algorithm: tokenBucket({ capacity: 50, refillRate: 5 }) },
 *     apiKey: gcra({ rate: 10, period: '1s', burst: 20 }),
 *   }),
 * });
 */
export function layered<Req = unknown>(options: LayeredOptions<Req>): LimitRule<Req>[] {
  const raw = requireObject('layered', options);
  rejectUnknownKeys('layered', raw, ['ip', 'user', 'apiKey']);
  const rules: LimitRule<Req>[] = [];
  if (raw.ip !== undefined) rules.push(ipRule(raw.ip));
  if (raw.user !== undefined) rules.push(userRule<Req>(raw.user));
  if (raw.apiKey !== undefined) rules.push(apiKeyRule(raw.apiKey));
  if (rules.length === 0) {
    throw new InvalidOptionTypeError('layered needs at least one of the layers ip, user, apiKey');
  }
  return rules;
}

function ipRule(value: unknown): LimitRule {
  if (isAlgorithm(value)) return { name: 'ip', key: byIp(), algorithm: value };
  const layer = layerObject('layered.ip', value, algorithmOr('{ algorithm, ipv6Subnet }'));
  const key = ipKeyFunction(parseByIpOptions('layered.ip', layer, ['algorithm']));
  return { name: 'ip', key, algorithm: algorithmOption('layered.ip', layer.algorithm) };
}

function userRule<Req>(value: unknown): LimitRule<Req> {
  if (isAlgorithm(value)) {
    throw new InvalidOptionTypeError(
      'layered.user must be an object { id, algorithm }: the user layer needs an id function',
    );
  }
  const layer = layerObject('layered.user', value, 'an object { id, algorithm }');
  rejectUnknownKeys('layered.user', layer, ['id', 'algorithm']);
  const id = functionOption<(req: Req) => UserId>('layered.user.id', layer.id);
  return { name: 'user', key: byUser(id), algorithm: algorithmOption('layered.user', layer.algorithm) };
}

function apiKeyRule(value: unknown): LimitRule {
  if (isAlgorithm(value)) return { name: 'apiKey', key: byApiKey(), algorithm: value };
  const layer = layerObject('layered.apiKey', value, algorithmOr('{ algorithm, header }'));
  const key = apiKeyFunction(parseByApiKeyOptions('layered.apiKey', layer, ['algorithm']));
  return { name: 'apiKey', key, algorithm: algorithmOption('layered.apiKey', layer.algorithm) };
}

function algorithmOr(form: string): string {
  return `an algorithm such as fixedWindow({ limit, window }) or ${form}`;
}

function layerObject(where: string, value: unknown, expected: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidOptionTypeError(`${where} must be ${expected}, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

function algorithmOption(where: string, value: unknown): Algorithm {
  if (!isAlgorithm(value)) {
    throw new InvalidOptionTypeError(
      `${where}.algorithm must be made by an algorithm factory such as fixedWindow({ limit, window }), got ${show(value)}`,
    );
  }
  return value;
}
