const SAFE = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Turns what a key function returned into the identity stored between the braces of a Redis key.
 * Short values made only of `[A-Za-z0-9._:-]` pass unchanged; anything else (empty, longer than
 * 64 bytes, braces, spaces, non-ASCII) becomes `~` + base64url(SHA-256). The `~` can never occur
 * in a raw identity, so a raw value cannot impersonate a hashed one, and the result never contains
 * `{` or `}` and is never empty: user input cannot choose a Cluster slot.
 */
export async function encodeIdentity(value: string): Promise<string> {
  return SAFE.test(value) ? value : `~${await sha256Base64Url(value)}`;
}

/** Always hashes: for secrets (API keys, tokens) that must never reach Redis or logs. */
export async function hashSecret(value: string): Promise<string> {
  return `~${await sha256Base64Url(value)}`;
}

const encoder = new TextEncoder();

/**
 * UTF-8 for well-formed strings. Strings with lone surrogates (possible from JSON or JWT claims)
 * would all encode to U+FFFD and collide, so they are hashed as 0xFF (never a UTF-8 byte) followed by
 * their UTF-16 code units.
 */
function bytesOf(value: string): Uint8Array<ArrayBuffer> {
  if (value.isWellFormed()) return encoder.encode(value) as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(1 + value.length * 2);
  bytes[0] = 0xff;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    bytes[1 + i * 2] = unit & 0xff;
    bytes[2 + i * 2] = unit >> 8;
  }
  return bytes;
}

export async function sha256Base64Url(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytesOf(value)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
