import { describe, expect, it } from 'vitest';
import { rendezvousHome } from '../src/home';
import { parseRegionalOptions } from '../src/options';
import type { RedisClientAdapter } from '@floodgate/redis';

const adapter: RedisClientAdapter = {
  name: 'test',
  cluster: false,
  offlineQueue: false,
  evalsha: async () => null,
  eval: async () => null,
  fcall: async () => null,
  functionLoad: async () => undefined,
  isNoScript: () => false,
  isFunctionMissing: () => false,
};
const regions = { eu: adapter, us: adapter, ap: adapter };

describe('RegionalStore options', () => {
  it('takes the defaults the README states', () => {
    const config = parseRegionalOptions({ region: 'eu', regions });
    expect(config).toMatchObject({
      names: ['ap', 'eu', 'us'],
      threshold: 0.8,
      refresh: 1000,
      homeTimeout: 200,
      timeout: 1000,
      clockSkew: 50,
      prefix: 'rg',
      allotment: 0.025,
    });
  });

  it.each([
    [{ region: 'mars', regions }, /RegionalStore.region must be one of ap, eu, us, got "mars"/],
    [{ region: 'eu', regions: { eu: adapter } }, /RegionalStore.regions must name 2 to 16 regions, got 1/],
    [{ region: 'eu', regions, lease: { size: 1.5 } }, /RegionalStore.lease.size .* got 1.5/],
    [{ region: 'eu', regions, lease: { threshold: 0 } }, /RegionalStore.lease.threshold .* got 0/],
    [{ region: 'eu', regions, prefix: 'a:b' }, /RegionalStore.prefix .* got "a:b"/],
    [{ region: 'eu', regions, lease: { allotment: 0.5 } }, /RegionalStore.lease.allotment .* got 0.5/],
    [{ region: 'eu', regions, lease: { allotment: -1 } }, /RegionalStore.lease.allotment .* got -1/],
    [{ region: 'eu', regions, lease: { ttl: 5 } }, /ttl/],
  ])('rejects %j with a message naming the option', (options, message) => {
    expect(() => parseRegionalOptions(options as never)).toThrow(message);
  });
});

describe('rendezvousHome', () => {
  it('places keys on every region, and the same key always on the same one whatever the order of names', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const home = rendezvousHome(['ap', 'eu', 'us'], `fg:ip:rule:{${i}}`);
      expect(rendezvousHome(['us', 'ap', 'eu'], `fg:ip:rule:{${i}}`)).toBe(home);
      counts.set(home, (counts.get(home) ?? 0) + 1);
    }
    for (const name of ['ap', 'eu', 'us']) expect(counts.get(name)).toBeGreaterThan(800);
  });
});
