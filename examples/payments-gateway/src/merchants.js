import { tokenBucket } from '@floodgate/fastify';

/**
 * What each plan may send, per merchant, over every route: a burst of `capacity` requests, then
 * `refillRate` per second. Made once: the tier function hands these same objects to the limiter,
 * so each tier's options are checked at start-up, not per request.
 */
export const TIERS = {
  starter: tokenBucket({ capacity: 20, refillRate: 5 }),
  growth: tokenBucket({ capacity: 100, refillRate: 25 }),
  enterprise: tokenBucket({ capacity: 300, refillRate: 100 }),
};

/** The demo's merchants. In a real gateway these rows come from your database or config service. */
export const DEMO_MERCHANTS = [
  { apiKey: 'sk_test_corner_cafe', id: 'corner-cafe', tier: 'starter' },
  { apiKey: 'sk_test_bike_shop', id: 'bike-shop', tier: 'growth' },
  { apiKey: 'sk_test_megamart', id: 'megamart', tier: 'enterprise' },
];

/**
 * @typedef {{ id: string, tier: keyof typeof TIERS }} Merchant
 * @typedef {{ apiKey: string } & Merchant} MerchantRow
 */

/**
 * The config table: API key -> merchant and tier. Every request looks its merchant up again, so a
 * tier changed here applies from the next request on.
 *
 * @param {readonly MerchantRow[]} [rows]
 */
export function merchantTable(rows = DEMO_MERCHANTS) {
  /** @type {Map<string, Merchant>} */
  const byKey = new Map();
  /** @type {Map<string, string>} */
  const keyOf = new Map();
  for (const { apiKey, id, tier } of rows) {
    checkTier(tier);
    byKey.set(apiKey, { id, tier });
    keyOf.set(id, apiKey);
  }
  return {
    /** @param {string | undefined} apiKey @returns {Merchant | undefined} */
    byApiKey: (apiKey) => (apiKey === undefined ? undefined : byKey.get(apiKey)),
    /** @param {string} id @param {keyof typeof TIERS} tier */
    setTier(id, tier) {
      checkTier(tier);
      const apiKey = keyOf.get(id);
      if (apiKey === undefined) throw new Error(`no merchant "${id}"`);
      byKey.set(apiKey, { id, tier });
    },
  };
}

/** @typedef {ReturnType<typeof merchantTable>} MerchantTable */

/** @param {string} tier */
function checkTier(tier) {
  if (!Object.hasOwn(TIERS, tier))
    throw new Error(`unknown tier "${tier}"; the tiers are ${Object.keys(TIERS).join(', ')}`);
}
