import { describe, expect, it } from 'vitest';
import { byApiKey, byIp, createLimiter, fixedWindow, layered, MemoryStore } from '@floodgate/core';
import { hashSecret } from '../src/keys/identity';
import type { KeyContext } from '@floodgate/core';
import { contextOf } from './keys/context';

interface Req {
  user?: { id: string };
}

const userId = (req: Req) => req.user?.id;

function ctx(ip: string, req: Req = {}, headers: Record<string, string> = {}): KeyContext<Req> {
  return contextOf({ ip, req, headers });
}

describe('layered builds rules', () => {
  it('names the layers ip, user, apiKey, in that order, only those given', async () => {
    const ip = fixedWindow({ limit: 300, window: '1m' });
    const user = fixedWindow({ limit: 50, window: '10s' });
    const apiKey = fixedWindow({ limit: 10, window: '1s' });
    const rules = layered<Req>({ apiKey, user: { id: userId, algorithm: user }, ip });
    expect(rules.map((rule) => [rule.name, rule.algorithm])).toEqual([
      ['ip', ip],
      ['user', user],
      ['apiKey', apiKey],
    ]);
    const request = ctx('2001:db8:abcd:1234::1', { user: { id: 'u1' } }, { 'x-api-key': 'k' });
    const keys = await Promise.all(rules.map((rule) => rule.key(request)));
    expect(keys).toEqual(['2001:db8:abcd:1200::', 'u1', await hashSecret('k')]);
    expect(layered({ user: { id: userId, algorithm: user } }).map((rule) => rule.name)).toEqual(['user']);
  });

  it('passes byIp and byApiKey options in the object forms', async () => {
    const algorithm = fixedWindow({ limit: 1, window: 1000 });
    const [ip, apiKey] = layered({
      ip: { algorithm, ipv6Subnet: 64, fallback: undefined },
      apiKey: { algorithm, header: 'X-Client-Key' },
    });
    expect(await ip?.key(ctx('2001:db8:abcd:1234:5678::1'))).toBe('2001:db8:abcd:1234::');
    expect(await ip?.key(contextOf({ ip: undefined }))).toBeUndefined();
    expect(await apiKey?.key(ctx('1.2.3.4', {}, { 'x-client-key': 'k' }))).toBe(await hashSecret('k'));
    expect(await byIp()(ctx('2001:db8:abcd:1234:5678::1'))).toBe('2001:db8:abcd:1200::');
    expect(await byApiKey()(ctx('1.2.3.4', {}, { 'x-client-key': 'k' }))).toBeUndefined();
  });
});

describe('layered through createLimiter', () => {
  const setup = () => {
    let now = 1_000_000;
    const clock = () => now;
    const limiter = createLimiter<Req>({
      store: new MemoryStore({ clock }),
      clock,
      limits: layered<Req>({
        ip: fixedWindow({ limit: 3, window: '1m' }),
        user: { id: userId, algorithm: fixedWindow({ limit: 1, window: '1m' }) },
      }),
    });
    return { limiter, advance: (ms: number) => (now += ms) };
  };

  it('charges the ip layer nothing for a request the user layer denies', async () => {
    const { limiter } = setup();
    const signedIn = { user: { id: 'u1' } };
    const first = await limiter.consume(ctx('203.0.113.7', signedIn));
    expect(first.results.map((r) => [r.rule, r.allowed, r.remaining])).toEqual([
      ['ip', true, 2],
      ['user', true, 0],
    ]);
    const denied = await limiter.consume(ctx('203.0.113.7', signedIn));
    expect(denied).toMatchObject({ allowed: false, rule: 'user' });
    // The ip layer would have allowed; it reports its uncharged numbers.
    expect(denied.results.find((r) => r.rule === 'ip')).toMatchObject({ allowed: true, remaining: 2 });
    // Had the denied request been charged to ip, this would leave 0 remaining.
    const anonymous = await limiter.consume(ctx('203.0.113.7'));
    expect(anonymous.results.map((r) => [r.rule, r.remaining])).toEqual([['ip', 1]]);
  });

  it('skips the user layer for an anonymous request', async () => {
    const { limiter, advance } = setup();
    for (const expected of [2, 1, 0]) {
      const decision = await limiter.consume(ctx('198.51.100.1'));
      expect(decision.results.map((r) => r.rule)).toEqual(['ip']);
      expect(decision).toMatchObject({ allowed: true, rule: 'ip', remaining: expected });
    }
    expect(await limiter.consume(ctx('198.51.100.1'))).toMatchObject({ allowed: false, rule: 'ip' });
    advance(60_000);
    expect(await limiter.consume(ctx('198.51.100.1'))).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('layered rejects bad options', () => {
  const algorithm = fixedWindow({ limit: 1, window: 1000 });
  const cases: [string, () => unknown, string][] = [
    ['no layers', () => layered({}), 'layered needs at least one of the layers ip, user, apiKey'],
    ['not an object', () => layered(undefined as never), 'layered: options must be an object, got undefined'],
    [
      'unknown layer',
      () => layered({ global: algorithm } as never),
      'layered: unknown option "global"; expected one of ip, user, apiKey',
    ],
    [
      'ip not an algorithm',
      () => layered({ ip: 300 as never }),
      'layered.ip must be an algorithm such as fixedWindow({ limit, window }) or { algorithm, ipv6Subnet }, got 300',
    ],
    [
      'ip without algorithm',
      () => layered({ ip: { ipv6Subnet: 64 } as never }),
      'layered.ip.algorithm must be made by an algorithm factory such as fixedWindow({ limit, window }), got undefined',
    ],
    [
      'ip bad subnet',
      () => layered({ ip: { algorithm, ipv6Subnet: 200 } }),
      'layered.ip.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got 200',
    ],
    [
      'ip unknown key',
      () => layered({ ip: { algorithm, subnet: 64 } as never }),
      'layered.ip: unknown option "subnet"; expected one of ipv6Subnet, fallback, algorithm',
    ],
    [
      'user is an algorithm',
      () => layered({ user: algorithm as never }),
      'layered.user must be an object { id, algorithm }: the user layer needs an id function',
    ],
    [
      'user not an object',
      () => layered({ user: 'id' as never }),
      'layered.user must be an object { id, algorithm }, got "id"',
    ],
    [
      'user id missing',
      () => layered({ user: { algorithm } as never }),
      'layered.user.id must be a function, got undefined',
    ],
    [
      'user algorithm missing',
      () => layered({ user: { id: userId } as never }),
      'layered.user.algorithm must be made by an algorithm factory such as fixedWindow({ limit, window }), got undefined',
    ],
    [
      'apiKey bad header',
      () => layered({ apiKey: { algorithm, header: '' } }),
      `layered.apiKey.header must be a header name such as 'x-api-key', got ""`,
    ],
  ];

  it.each(cases)('%s', (_label, make, message) => {
    expect(make).toThrow(expect.objectContaining({ message, code: 'ERR_FLOODGATE_INVALID_OPTION' }));
  });
});
