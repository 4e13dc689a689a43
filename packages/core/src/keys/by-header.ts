import { InvalidOptionTypeError, show } from '../base/errors';
import { rejectUnknownKeys, requireObject } from '../base/validate';
import { hashSecret } from './identity';
import type { KeyContext, KeyFunction } from './context';

export interface ByHeaderOptions {
  /** Hash the value before it becomes part of a key: set it for tokens and other secrets. Default false. */
  hash?: boolean;
}

/**
 * Keys a layer by one request header, matched case-insensitively. The layer does not apply when
 * the header is absent or blank. Values that could be secrets should use `hash: true` (or byApiKey).
 *
 * @example byHeader('x-tenant-id')
 */
export function byHeader(name: string, options: ByHeaderOptions = {}): KeyFunction {
  const header = headerNameOption('byHeader.name', name);
  const raw = requireObject('byHeader', options);
  rejectUnknownKeys('byHeader', raw, ['hash']);
  if (raw.hash !== undefined && typeof raw.hash !== 'boolean') {
    throw new InvalidOptionTypeError(`byHeader.hash must be a boolean, got ${show(raw.hash)}`);
  }
  const hash = raw.hash === true;
  return function byHeaderKey(ctx) {
    const value = headerValue(ctx, header);
    return value === undefined || !hash ? value : hashSecret(value);
  };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header field name (an RFC 9110 token), returned in lower case. */
export function headerNameOption(name: string, value: unknown): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    throw new InvalidOptionTypeError(`${name} must be a header name such as 'x-api-key', got ${show(value)}`);
  }
  return value.toLowerCase();
}

/** The trimmed header value, or undefined when it is absent or blank. */
export function headerValue(ctx: KeyContext, lowerCaseName: string): string | undefined {
  const value: unknown = ctx.header(lowerCaseName);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
