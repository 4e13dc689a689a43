import { describe, expect, it } from 'vitest';
import { fixedWindow } from '@floodgate/core';
import { parseRequest } from '../src/parse-request';
import { toWireLayer } from '../src/protocol';

/** Shadow, critical and penalties on the wire, and the control operations: checked on both ends. */

const window = fixedWindow({ limit: 5, window: '1m', reserve: 1 });
const penalty = { duration: 60_000, period: 3_600_000, max: 600_000 };

describe('toWireLayer: shadow, critical, penalty (in the Worker)', () => {
  it('sends each only when it is set, and the penalty as its three numbers', () => {
    expect(toWireLayer({ key: 'k', algorithm: window, cost: 1, shadow: false, critical: false })).not.toHaveProperty(
      'shadow',
    );
    const layer = toWireLayer({ key: 'k', algorithm: window, cost: 1, shadow: true, critical: true, penalty });
    expect(layer).toMatchObject({ shadow: true, critical: true, penalty });
    expect(JSON.parse(JSON.stringify(layer))).toEqual(layer);
  });

  it.each([
    [
      'a shadow that is not a boolean',
      { shadow: 'yes' },
      'ERR_FLOODGATE_INVALID_OPTION',
      /shadow must be a boolean, got "yes"/,
    ],
    [
      'a critical that is not a boolean',
      { critical: 1 },
      'ERR_FLOODGATE_INVALID_OPTION',
      /critical must be a boolean, got 1/,
    ],
    [
      'a penalty of 0 ms',
      { penalty: { ...penalty, duration: 0 } },
      'ERR_FLOODGATE_INVALID_OPTION',
      /duration must be whole ms/,
    ],
    ['a max below the duration', { penalty: { ...penalty, max: 1000 } }, 'ERR_FLOODGATE_INVALID_OPTION', /max must be/],
    ['a max past any timer', { penalty: { ...penalty, max: 2 ** 31 } }, 'ERR_FLOODGATE_INVALID_OPTION', /max must be/],
    ['a negative period', { penalty: { ...penalty, period: -1 } }, 'ERR_FLOODGATE_INVALID_OPTION', /period must be/],
    [
      'a penalty field of its own',
      { penalty: { ...penalty, grace: 1 } },
      'ERR_FLOODGATE_INVALID_OPTION',
      /unknown field "grace"/,
    ],
  ])('throws on %s before anything is sent', (_, extra, code, message) => {
    const call = () => toWireLayer({ key: 'k', algorithm: window, cost: 1, ...extra } as never);
    expect(call).toThrow(message);
    expect(call).toThrow(expect.objectContaining({ code }));
  });
});

describe('parseRequest: the new fields and operations (in the object)', () => {
  const layer = toWireLayer({ key: 'k', algorithm: window, cost: 1 });
  const consume = { op: 'consume', id: 'r', layers: [layer] };

  it.each([
    [
      'a consume with every field',
      {
        ...consume,
        partial: true,
        now: 1_700_000_000_000,
        layers: [{ ...layer, shadow: true, critical: true, penalty }],
      },
    ],
    ['a peek at the Worker clock', { op: 'peek', id: '', now: 0, layers: [layer] }],
    ['a reset', { op: 'reset', id: '', layers: [layer] }],
    ['a block', { op: 'block', id: '', duration: 60_000, layers: [layer] }],
    ['an unblock', { op: 'unblock', id: '', layers: [layer] }],
  ])('passes %s through', (_, request) => {
    expect(parseRequest(JSON.parse(JSON.stringify(request)))).toEqual(request);
  });

  it.each([
    [
      'a block without a duration',
      { op: 'block', id: '', layers: [layer] },
      /duration must be whole ms >= 1 on a block.*got undefined on block/,
    ],
    ['a block of 0 ms', { op: 'block', id: '', duration: 0, layers: [layer] }, /duration .* got 0 on block/],
    ['a block of a fraction of a ms', { op: 'block', id: '', duration: 1.5, layers: [layer] }, /got 1.5 on block/],
    ['a block past any timer', { op: 'block', id: '', duration: 2 ** 31, layers: [layer] }, /got 2147483648 on block/],
    ['a duration on a consume', { ...consume, duration: 1000 }, /only there, got 1000 on consume/],
    [
      'partial on a peek',
      { op: 'peek', id: '', partial: true, layers: [layer] },
      /partial must be a boolean on a consume, got true on peek/,
    ],
    ['a partial that is not a boolean', { ...consume, partial: 'yes' }, /partial must be a boolean/],
    ['a negative now', { ...consume, now: -1 }, /now must be integer epoch ms >= 0, got -1/],
    ['a fractional now', { ...consume, now: 1.5 }, /now .* got 1.5/],
    ['a now as a string', { ...consume, now: '1700000000000' }, /now .* got "1700000000000"/],
    ['a request field of its own', { ...consume, priority: 'high' }, /the request has an unknown field "priority"/],
    [
      'a layer field of its own',
      { ...consume, layers: [{ ...layer, weight: 2 }] },
      /a layer has an unknown field "weight"/,
    ],
    ['shadow: false (never sent)', { ...consume, layers: [{ ...layer, shadow: false }] }, /bad shadow false/],
    ['a critical that is a string', { ...consume, layers: [{ ...layer, critical: 'true' }] }, /bad critical "true"/],
    [
      'a penalty that is a number',
      { ...consume, layers: [{ ...layer, penalty: 60_000 }] },
      /bad penalty 60000: it is not an object/,
    ],
    [
      'a penalty without max',
      { ...consume, layers: [{ ...layer, penalty: { duration: 1, period: 0 } }] },
      /bad penalty .*max must be/,
    ],
    [
      'a penalty of NaN',
      { ...consume, layers: [{ ...layer, penalty: { ...penalty, duration: null } }] },
      /bad penalty .*duration must be/,
    ],
    ['an array for a request', [consume], /expected an object/],
  ])('refuses %s, saying why', (_, body, message) => {
    expect(() => parseRequest(body)).toThrow(TypeError);
    expect(() => parseRequest(body)).toThrow(message);
  });
});
