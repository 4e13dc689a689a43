import { describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import { LocalFallback } from '../../src/resilience/fallback';

const perMinute = fixedWindow({ limit: 10, window: 60_000 });
const call = (key: string, cost = 1): LayerCall => ({ key, algorithm: perMinute, cost });

function admitted(fallback: LocalFallback, key: string, attempts: number): number {
  let allowed = 0;
  for (let i = 0; i < attempts; i++) {
    if (fallback.decide([call(key)], `r${i}`, 0).outcomes[0]?.allowed) allowed++;
  }
  return allowed;
}

describe('LocalFallback', () => {
  const clock = () => 120_000;

  it("'local' admits each layer's limit divided by instances, with the divided limit reported", () => {
    const fallback = new LocalFallback('local', 4, clock);
    expect(admitted(fallback, 'a', 20)).toBe(2);
    expect(fallback.decide([call('a')], 'x', 0).outcomes[0]).toMatchObject({
      allowed: false,
      limit: 2,
      retryAfter: 60_000,
    });
    expect(admitted(new LocalFallback('local', 1, clock), 'a', 20)).toBe(10);
    expect(admitted(new LocalFallback('local', 50, clock), 'a', 20)).toBe(1);
  });

  it('caps a cost above the divided share so the request can still pass once', () => {
    const fallback = new LocalFallback('local', 4, clock);
    expect(fallback.decide([call('a', 5)], 'x', 0).outcomes[0]?.allowed).toBe(true);
    expect(fallback.decide([call('a', 1)], 'y', 0).outcomes[0]?.allowed).toBe(false);
  });

  it('forgets everything on clear()', () => {
    const fallback = new LocalFallback('local', 1, clock);
    admitted(fallback, 'a', 10);
    expect(fallback.size).toBe(1);
    fallback.clear();
    expect(fallback.size).toBe(0);
    expect(admitted(fallback, 'a', 20)).toBe(10);
  });

  it("'open' allows everything and 'closed' refuses as unavailable, with at least 1 s to wait", () => {
    const open = new LocalFallback('open', 1, clock).decide([call('a')], 'x', 0);
    expect(open).toMatchObject({
      unavailable: false,
      leasedLocally: false,
      outcomes: [{ allowed: true, remaining: 10 }],
    });
    const closed = new LocalFallback('closed', 1, clock).decide([call('a')], 'x', 200);
    expect(closed).toMatchObject({ unavailable: true, outcomes: [{ allowed: false, retryAfter: 1000 }] });
    const later = new LocalFallback('closed', 1, clock).decide([call('a')], 'x', 25_000);
    expect(later.outcomes[0]?.retryAfter).toBe(25_000);
  });
});
