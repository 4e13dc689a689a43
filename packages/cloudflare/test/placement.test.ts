import { describe, expect, it } from 'vitest';
import { hashTagOf, objectNameOf } from '../src/placement';

describe('placement', () => {
  it('reads the identity between the first braces, as Redis Cluster does', () => {
    expect(hashTagOf('fg:ip:sw.1hq3k0:{203.0.113.7}')).toBe('203.0.113.7');
    expect(hashTagOf('fg:user:tb.x:{~abc}:extra{b}')).toBe('~abc');
    expect(hashTagOf('no-tag')).toBe('no-tag');
    expect(hashTagOf('empty:{}:tag')).toBe('empty:{}:tag');
    expect(hashTagOf('open:{only')).toBe('open:{only');
  });

  it('puts every layer of one identity in one object, and other identities elsewhere', () => {
    const ip = objectNameOf('fg:ip:sw.1:{203.0.113.7}', undefined);
    expect(ip).toBe('id:203.0.113.7');
    expect(objectNameOf('fg:burst:tb.2:{203.0.113.7}', undefined)).toBe(ip);
    expect(objectNameOf('fg:ip:sw.1:{203.0.113.8}', undefined)).not.toBe(ip);
  });

  it('spreads identities over the shards, naming the count', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const name = objectNameOf(`fg:ip:sw.1:{10.${i >> 8}.${i & 255}.1}`, 8);
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: 8 }, (_, i) => `shard:${i}/8`));
    for (const count of counts.values()) expect(count).toBeGreaterThan(350);
    expect(objectNameOf('fg:ip:sw.1:{203.0.113.7}', 1)).toBe('shard:0/1');
  });
});
