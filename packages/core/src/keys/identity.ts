import { sha256 } from '@noble/hashes/sha2';

const SAFE = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Turns what a key function returned into the identity stored between the braces of a Redis key.
 * Short values made only of `[A-Za-z0-9._:-]` pass unchanged; anything else (empty, longer than
 * 64 bytes, braces, spaces, non-ASCII) becomes `~` + base64url(SHA-256). The `~` can never occur
 * in a raw identity, so a raw value cannot impersonate a hashed one, and the result never contains
 * `{` or `}` and is never empty: user input cannot choose a Cluster slot.
 */
export function encodeIdentity(value: string): string {
  return SAFE.test(value) ? value : `~${sha256Base64Url(value)}`;
}

/** Always hashes: for secrets (API keys, tokens) that must never reach Redis or logs. */
export function hashSecret(value: string): string {
  return `~${sha256Base64Url(value)}`;
}

const encoder = new TextEncoder();

/**
 * UTF-8 for well-formed strings. Strings with lone surrogates (possible from JSON or JWT claims)
 * would all encode to U+FFFD and collide, so they are hashed as 0xFF (never a UTF-8 byte) followed by
 * their UTF-16 code units.
 */
function bytesOf(value: string): Uint8Array {
  if (value.isWellFormed()) return encoder.encode(value);
  const bytes = new Uint8Array(1 + value.length * 2);
  bytes[0] = 0xff;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    bytes[1 + i * 2] = unit & 0xff;
    bytes[2 + i * 2] = unit >> 8;
  }
  return bytes;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * SHA-256, synchronously: Web Crypto's digest is promise-only and, on Node, a thread-pool round
 * trip (about 30 µs a call here), which every request keyed by an API key would pay.
 */
export function sha256Base64Url(value: string): string {
  const digest = sha256(bytesOf(value));
  let out = '';
  let i = 0;
  for (; i + 2 < digest.length; i += 3) {
    const n = ((digest[i] as number) << 16) | ((digest[i + 1] as number) << 8) | (digest[i + 2] as number);
    out += BASE64URL.charAt(n >> 18) + BASE64URL.charAt((n >> 12) & 63);
    out += BASE64URL.charAt((n >> 6) & 63) + BASE64URL.charAt(n & 63);
  }
  // 32 bytes leave 2: three characters, no padding.
  const n = ((digest[i] as number) << 16) | ((digest[i + 1] as number) << 8);
  return out + BASE64URL.charAt(n >> 18) + BASE64URL.charAt((n >> 12) & 63) + BASE64URL.charAt((n >> 6) & 63);
}
