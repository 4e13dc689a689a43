/** The demo merchants' API keys (src/merchants.js). */
export const KEYS = {
  starter: 'sk_test_corner_cafe',
  growth: 'sk_test_bike_shop',
  enterprise: 'sk_test_megamart',
} as const;

/** One call to a gateway, as a merchant (`apiKey`) or anonymously; asks for JSON. */
export function call(base: string, method: string, path: string, apiKey?: string): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  return fetch(`${base}${path}`, { method, headers });
}

/** `n` calls one after another; their statuses, in order. */
export async function statusesOf(n: number, send: () => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const response = await send();
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

/** How many of `statuses` equal `status`. */
export function countOf(statuses: readonly number[], status: number): number {
  return statuses.filter((each) => each === status).length;
}

/** The status of a response and, for a 429, the layers its problem+json body names as violated. */
export async function outcomeOf(response: Response): Promise<{ status: number; violated?: string[] }> {
  if (response.status !== 429) {
    await response.arrayBuffer();
    return { status: response.status };
  }
  const body = (await response.json()) as { 'violated-policies'?: string[] };
  return { status: 429, violated: body['violated-policies'] ?? [] };
}
