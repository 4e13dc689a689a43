import { rejectUnknownKeys, requireObject } from '../validate';
import { headerNameOption, headerValue } from './by-header';
import { hashSecret } from './identity';
import type { KeyFunction } from './context';

export interface ByApiKeyOptions {
  /** The header that carries the key. Default `'x-api-key'`. */
  header?: string;
}

const BEARER = /^Bearer[ \t]+(\S+)$/i;

/**
 * Keys a layer by API key: the `header` (default `x-api-key`), else the token of an
 * `Authorization: Bearer <token>` header. The key is always hashed, so a secret never reaches the
 * store, its keys or logs; the same secret gives the same key whichever header carried it.
 * The layer does not apply when neither header is present.
 *
 * @example byApiKey({ header: 'x-client-key' })
 */
export function byApiKey(options: ByApiKeyOptions = {}): KeyFunction {
  return apiKeyFunction(parseByApiKeyOptions('byApiKey', options));
}

/** Validates byApiKey's options and returns the header name in lower case; `where` names the object in errors. */
export function parseByApiKeyOptions(where: string, options: unknown, extraKeys: readonly string[] = []): string {
  const raw = requireObject(where, options);
  rejectUnknownKeys(where, raw, ['header', ...extraKeys]);
  return raw.header === undefined ? 'x-api-key' : headerNameOption(`${where}.header`, raw.header);
}

/** The key function for a validated, lower-case header name. */
export function apiKeyFunction(header: string): KeyFunction {
  return function byApiKeyKey(ctx) {
    const key = headerValue(ctx, header) ?? bearerToken(headerValue(ctx, 'authorization'));
    return key === undefined ? undefined : hashSecret(key);
  };
}

function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
