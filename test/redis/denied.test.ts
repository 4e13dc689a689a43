import { describe, expect, it } from 'vitest';
import { RedisStore } from '@floodgate/redis';
import { ALGORITHM_KINDS, ROOMY } from './fixtures/algorithms.ts';
import { freshPrefix, layerKey, storedKey } from './fixtures/client.ts';
import { useRedis } from './fixtures/suite.ts';

const suite = useRedis();
const NOW = 1_700_000_000_000;

describe('a burst of denied requests changes nothing (catalogue C31)', () => {
  it.each(ALGORITHM_KINDS)(
    '%s: 1,000 denied calls leave the key byte for byte as it was, TTL not extended',
    async (kind) => {
      const prefix = freshPrefix(`denied-${kind}`);
      const store = new RedisStore({ client: suite.client, prefix, clock: () => NOW });
      const call = { key: layerKey('ip', 'flood'), algorithm: ROOMY[kind](), cost: 1 };
      const key = storedKey(prefix, call.key);
      const admitted = [];
      for (let i = 0; i < 11; i++) admitted.push((await store.consume([call], `r${i}`))[0]?.allowed);
      expect(admitted).toEqual([...Array(10).fill(true), false]);

      const before = { dump: await suite.client.dump(key), ttl: await suite.client.pttl(key) };
      const started = performance.now();
      for (let round = 0; round < 10; round++) {
        const burst = Array.from({ length: 100 }, (_, i) => store.consume([call], `d${round}-${i}`));
        const outcomes = await Promise.all(burst);
        expect(outcomes.every(([outcome]) => outcome?.allowed === false)).toBe(true);
      }
      const elapsed = performance.now() - started;
      expect(await suite.client.dump(key)).toEqual(before.dump);
      // The TTL counted down through the whole burst: no denied call wrote a new expiry.
      expect(await suite.client.pttl(key)).toBeLessThanOrEqual(before.ttl - Math.floor(elapsed) + 10);
    },
  );
});
