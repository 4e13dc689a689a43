import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { LRUCache } from 'lru-cache';
import { InvalidOptionError, InvalidOptionTypeError, show } from '../base/errors';
import { rejectUnknownKeys, requireObject } from '../base/validate';

/** `partitionKey` option: draft-11's `pk` parameter, derived from each layer's key with a secret. */
export interface PartitionKeyOptions {
  /**
   * At least 16 bytes (a string's UTF-8, or the bytes given). The same on every instance, so one
   * client gets the same `pk` whichever instance answers; changing it changes every `pk`.
   */
  secret: string | Uint8Array;
}

/** The `pk` Byte Sequence (base64, without the colons) of a layer's storage key. */
export type PartitionKeyOf = (layerKey: string) => string;

const MIN_SECRET_BYTES = 16;
/** 12 bytes of HMAC-SHA-256 (16 base64 characters): collisions between clients are out of reach. */
const PK_BYTES = 12;
/** Distinct keys remembered per middleware; beyond it the oldest are hashed again. */
const CACHE_KEYS = 10_000;

const encoder = new TextEncoder();

/**
 * Validates `partitionKey` and returns the function that derives `pk`: HMAC-SHA-256(secret, layer
 * key), truncated. The layer key holds the client's identity (an address, a user id, a hashed API
 * key); a keyed one-way hash shows a client only that two answers concern the same quota, never
 * what the key is, and without the secret nobody can compute a `pk` for a guessed identity.
 * The secret is never part of an error message.
 */
export function parsePartitionKey(where: string, value: unknown): PartitionKeyOf | undefined {
  if (value === undefined || value === false) return undefined;
  const raw = requireObject(`${where}.partitionKey`, value);
  rejectUnknownKeys(`${where}.partitionKey`, raw, ['secret']);
  const secret = raw.secret;
  let bytes: Uint8Array;
  if (typeof secret === 'string') bytes = encoder.encode(secret);
  else if (secret instanceof Uint8Array) bytes = secret.slice();
  else {
    throw new InvalidOptionTypeError(
      `${where}.partitionKey.secret must be a string or a Uint8Array of at least ${MIN_SECRET_BYTES} bytes, got ${secret === undefined ? 'undefined' : `a value of type ${typeof secret}`}`,
    );
  }
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new InvalidOptionError(
      `${where}.partitionKey.secret must be at least ${MIN_SECRET_BYTES} bytes, got ${show(bytes.length)} bytes`,
    );
  }
  const cache = new LRUCache<string, string>({ max: CACHE_KEYS });
  return (layerKey) => {
    let pk = cache.get(layerKey);
    if (pk === undefined) {
      pk = base64(hmac(sha256, bytes, encoder.encode(layerKey)).subarray(0, PK_BYTES));
      cache.set(layerKey, pk);
    }
    return pk;
  };
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
