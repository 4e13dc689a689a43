import { rejectUnknownKeys, requireObject } from '../base/validate';
import { headerNameOption, headerValue } from './by-header';
import { hashSecret } from './identity';
import { perClient } from './scope';
import type { KeyFunction } from './context';

export interface ByApiKeyOptions {
  /**
   * The one header that carries the key: `'x-api-key'` (default), any other name, or
   * `'authorization'` for the token of an `Authorization: Bearer <token>` header.
   */
  header?: string;
}

const BEARER = /^Bearer[ \t]+(\S+)$/i;

/**
 * Keys a layer by API key, read from one header only: the one your API authenticates with. Reading
 * a second header as a fallback would let a client authenticated by one send a fresh value in the
 * other with every request, and escape its limit. The key is always hashed, so a secret never
 * reaches the store, its keys or logs. The layer does not apply when the header is absent.
 *
 * @example byApiKey() // X-API-Key
 * @example byApiKey({ header: 'authorization' }) // Authorization: Bearer <token>
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
  if (header === 'authorization') {
    const byBearerToken: KeyFunction = (ctx) => {
      const token = bearerToken(headerValue(ctx, 'authorization'));
      return token === undefined ? undefined : hashSecret(token);
    };
    return perClient(byBearerToken);
  }
  const byApiKeyKey: KeyFunction = (ctx) => {
    const key = headerValue(ctx, header);
    return key === undefined ? undefined : hashSecret(key);
  };
  return perClient(byApiKeyKey);
}

function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}
