/**
 * Waits, when needed, until the wall clock has at least `marginMs` left in its current fixed window
 * of `windowMs`. A test that counts against Redis' own clock (TIME) cannot freeze it; this keeps a
 * short count from straddling a window edge, where the count would start again.
 */
export async function clearOfWindowEdge(windowMs: number, marginMs = 5000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 1));
}
