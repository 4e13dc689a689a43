/**
 * What a key's object is named after: its hash tag (the identity between the first `{` and the
 * next `}`, as Redis Cluster reads it), or the whole key when it has none. Every layer the limiter
 * keys by one identity (an IP's per-second and per-minute rules, say) shares a tag, so they meet
 * in one object and are decided together.
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** FNV-1a over UTF-16 code units: spreads tags over shards; nothing relies on it being secret. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The name of the Durable Object that keeps `key`: its identity (`id:203.0.113.7`), or with
 * `shards` the shard its identity hashes to (`shard:3/16`). The count is part of a shard's name, so
 * changing it starts from fresh objects instead of mixing two placements in one.
 */
export function objectNameOf(key: string, shards: number | undefined): string {
  const tag = hashTagOf(key);
  return shards === undefined ? `id:${tag}` : `shard:${fnv1a(tag) % shards}/${shards}`;
}
