import { describe, expect, it } from 'vitest';
import { concurrency, fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from '@floodgate/core';
import { AlgorithmCache } from '../src/algorithms';
import { parseRequest } from '../src/parse-request';
import { parseReply, toWireLayer } from '../src/protocol';
import type { Algorithm } from '@floodgate/core';
import type { WireRequest } from '../src/protocol';

const window = fixedWindow({ limit: 5, window: '1m' });

describe('toWireLayer (in the Worker)', () => {
  it.each([
    ['an empty key', { key: '', algorithm: window, cost: 1 }, 'ERR_FLOODGATE_INVALID_OPTION', /layer key/],
    ['a negative cost', { key: 'k', algorithm: window, cost: -1 }, 'ERR_FLOODGATE_INVALID_COST', /got -1/],
    ['a fractional cost', { key: 'k', algorithm: window, cost: 0.5 }, 'ERR_FLOODGATE_INVALID_COST', /got 0.5/],
    [
      'an algorithm of its own',
      { key: 'k', algorithm: { ...window, kind: 'mine' }, cost: 1 },
      'ERR_FLOODGATE_INVALID_OPTION',
      /algorithm "mine" is not one FloodgateObject can build/,
    ],
  ])('throws on %s before anything is sent', (_, call, code, message) => {
    expect(() => toWireLayer(call as never)).toThrow(message);
    expect(() => toWireLayer(call as never)).toThrow(expect.objectContaining({ code }));
  });
});

describe('AlgorithmCache (in the object)', () => {
  const all: Algorithm[] = [
    fixedWindow({ limit: 5, window: '1m' }),
    slidingLog({ limit: 7, window: '10 s' }),
    slidingWindow({ limit: 300, window: '1m' }),
    tokenBucket({ capacity: 50, refillRate: 0.5 }),
    leakyBucket({ capacity: 10, leakRate: 2, mode: 'shaping' }),
    gcra({ rate: 10, period: '1s', burst: 3 }),
    concurrency({ max: 4, lease: '30s' }),
  ];

  it.each(all.map((algorithm) => [algorithm.kind, algorithm] as const))(
    'builds %s from its options after a JSON round trip, with the same params',
    (_, algorithm) => {
      const wire = JSON.parse(JSON.stringify(toWireLayer({ key: 'k', algorithm, cost: 1 })));
      const built = new AlgorithmCache().get(wire);
      expect(built.params).toEqual(algorithm.params);
      expect(built.decide(undefined, 1_000_000, 1, 'r')).toEqual(algorithm.decide(undefined, 1_000_000, 1, 'r'));
    },
  );

  it('builds each algorithm once', () => {
    const cache = new AlgorithmCache();
    const wire = toWireLayer({ key: 'k', algorithm: window, cost: 1 });
    expect(cache.get(wire)).toBe(cache.get({ ...wire, key: 'other' }));
  });

  it('refuses params its own build does not give: another version of core made them', () => {
    const wire = { ...toWireLayer({ key: 'k', algorithm: window, cost: 1 }), params: [5, 60_000, 1] };
    expect(() => new AlgorithmCache().get(wire)).toThrow(/the Worker sent \[5, 60000, 1\]/);
  });

  it('refuses options the factory refuses', () => {
    const wire = { ...toWireLayer({ key: 'k', algorithm: window, cost: 1 }), options: { limit: 0, window: 1000 } };
    expect(() => new AlgorithmCache().get(wire)).toThrow(/fixedWindow.limit/);
  });
});

describe('parseRequest (in the object)', () => {
  const layer = toWireLayer({ key: 'k', algorithm: window, cost: 1 });
  it.each([
    ['not an object', 'consume', /expected an object/],
    ['an unknown operation', { op: 'flush', id: '', layers: [] }, /unknown operation "flush"/],
    ['no id', { op: 'consume', layers: [] }, /id must be a string/],
    ['layers that are not an array', { op: 'consume', id: '', layers: {} }, /layers must be an array/],
    ['a layer without key', { op: 'consume', id: '', layers: [{ ...layer, key: '' }] }, /bad layer key/],
    ['an unknown algorithm', { op: 'peek', id: '', layers: [{ ...layer, kind: 'x' }] }, /unknown algorithm/],
    ['a cost of NaN', { op: 'consume', id: '', layers: [{ ...layer, cost: null }] }, /bad cost/],
    ['params that are not integers', { op: 'consume', id: '', layers: [{ ...layer, params: [0.5] }] }, /bad params/],
  ])('refuses %s', (_, body, message) => {
    expect(() => parseRequest(body)).toThrow(message);
  });

  it('passes a well-formed request through', () => {
    const request = { op: 'refund', id: 'r1', layers: [layer] };
    expect(parseRequest(JSON.parse(JSON.stringify(request)))).toEqual(request);
  });
});

describe('parseReply (in the Worker)', () => {
  const request: WireRequest = {
    op: 'consume',
    id: '',
    layers: [toWireLayer({ key: 'k', algorithm: window, cost: 1 })],
  };
  const outcome = { allowed: true, limit: 5, remaining: 4, resetAt: 60_000, retryAfter: 0, delay: 0 };

  it('takes one well-formed outcome per layer', () => {
    expect(parseReply({ outcomes: [outcome] }, request)).toEqual([outcome]);
  });

  it.each([
    ['nothing', undefined],
    ['too few outcomes', { outcomes: [] }],
    ['too many outcomes', { outcomes: [outcome, outcome] }],
    ['allowed as a number', { outcomes: [{ ...outcome, allowed: 1 }] }],
    ['a fractional number', { outcomes: [{ ...outcome, remaining: 1.5 }] }],
    ['a missing number', { outcomes: [{ ...outcome, resetAt: undefined }] }],
  ])('treats %s as a store failure, never as a decision', (_, body) => {
    expect(() => parseReply(body, request)).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_STORE' }));
  });
});
