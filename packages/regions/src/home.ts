/**
 * Rendezvous (highest random weight) hashing: the home of `key` is the region whose hash with the
 * key is highest. Every process listing the same regions agrees, and adding or removing a region
 * moves only the keys it wins or held.
 */
export function rendezvousHome(names: readonly string[], key: string): string {
  let best = names[0] as string;
  let bestScore = -1;
  for (const name of names) {
    const score = fnv1a(`${name}\u0000${key}`);
    if (score > bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

/** 32-bit FNV-1a of the string's UTF-16 code units: cheap, stable, spread well enough for placement. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
