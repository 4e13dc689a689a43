import { describe, expect, it } from 'vitest';
import { clientIpResolver, describeTrust, ipMatcher, routeOverride } from '@floodgate/core/http';

describe('ipMatcher', () => {
  const matches = ipMatcher('allowList', ['10.0.0.0/8', '2001:db8::/32', '192.0.2.1', '::ffff:198.51.100.0/120']);

  it.each([
    ['10.200.1.1', true],
    ['11.0.0.1', false],
    ['::ffff:10.1.2.3', true],
    ['2001:db8:1::5', true],
    ['2001:db9::1', false],
    ['192.0.2.1', true],
    ['192.0.2.2', false],
    ['198.51.100.77', true],
    ['not an ip', false],
    [undefined, false],
  ])('%s -> %s', (ip, expected) => {
    expect(matches(ip)).toBe(expected);
  });

  it('matches an IPv6 form of a client by the IPv4 address it embeds, and by itself (issue 19, item 9)', () => {
    const listed = ipMatcher('allowList', ['198.51.100.0/24', '2002::/16']);
    for (const ip of ['64:ff9b::198.51.100.7', '::ffff:0:198.51.100.7', '[::ffff:198.51.100.7]', '::c633:6407']) {
      expect(listed(ip), ip).toBe(true);
    }
    expect(listed('64:ff9b::203.0.113.7')).toBe(false);
    // A 6to4 address matches the IPv6 range it was listed by, whatever IPv4 address it carries.
    expect(listed('2002:5db8:d822::1')).toBe(true);
    expect(ipMatcher('allowList', ['93.184.216.34'])('2002:5db8:d822::1')).toBe(true);
    expect(ipMatcher('allowList', ['10.0.0.0/8'])('0x0a.1')).toBe(false);
  });

  it('names the entry and the value it cannot parse', () => {
    expect(() => ipMatcher('allowList', ['10.0.0.0/8', 'ten'])).toThrow(/allowList\[1\].*"ten"/);
    expect(() => ipMatcher('allowList', [7])).toThrow(/allowList\[0\].*7/);
  });
});

describe('clientIpResolver', () => {
  it('never reads X-Forwarded-For without trust', () => {
    expect(clientIpResolver('t', undefined).resolve('10.0.0.1', '1.2.3.4')).toBe('10.0.0.1');
    expect(clientIpResolver('t', false).resolve('10.0.0.1', '1.2.3.4')).toBe('10.0.0.1');
    expect(clientIpResolver('t', 0).resolve('10.0.0.1', '1.2.3.4')).toBe('10.0.0.1');
  });

  it('reads an address with a port after it as that address, never as an invalid hop (issue 9, item 4)', () => {
    // Before, the port made the client hop invalid and the walk stopped at the proxy: every client
    // behind it shared the proxy's bucket.
    for (const trust of [1, ['127.0.0.1']]) {
      const resolver = clientIpResolver('t', trust);
      expect(resolver.resolve('127.0.0.1', '8.8.8.8:4444')).toBe('8.8.8.8');
      expect(resolver.resolve('127.0.0.1', '[2001:db8::5]:4444')).toBe('2001:db8::5');
      expect(resolver.resolve('127.0.0.1:80', '198.51.100.7')).toBe('198.51.100.7');
    }
  });

  it('reads a bracketed IPv6 address without a port as that address, never as an invalid hop (issue 19, item 9)', () => {
    // Before, `[2001:db8:1:2::1]` stopped the walk and the client was keyed by the proxy's address.
    for (const trust of [1, ['127.0.0.1']]) {
      const resolver = clientIpResolver('t', trust);
      expect(resolver.resolve('127.0.0.1', '[2001:db8:1:2::1]')).toBe('2001:db8:1:2::1');
      expect(resolver.resolve('127.0.0.1', '[fe80::1%eth0]')).toBe('fe80::1%eth0');
      expect(resolver.resolve('[::ffff:127.0.0.1]', '64:ff9b::1.2.3.4')).toBe('64:ff9b::1.2.3.4');
    }
  });

  it('walks back a number of hops', () => {
    const twoHops = clientIpResolver('t', 2);
    expect(twoHops.resolve('10.0.0.1', 'spoof, 198.51.100.7, 10.0.0.9')).toBe('198.51.100.7');
    expect(twoHops.resolve('10.0.0.1', '198.51.100.7')).toBe('198.51.100.7');
    expect(twoHops.resolve('10.0.0.1', undefined)).toBe('10.0.0.1');
  });

  it('walks back through trusted addresses only', () => {
    const listed = clientIpResolver('t', ['10.0.0.0/8']);
    expect(listed.resolve('10.0.0.1', 'spoof, 198.51.100.7, 10.0.0.9')).toBe('198.51.100.7');
    expect(listed.resolve('203.0.113.1', '198.51.100.7')).toBe('203.0.113.1');
  });

  it('trusting every hop takes the leftmost address', () => {
    expect(clientIpResolver('t', true).resolve('10.0.0.1', '6.6.6.6, 10.0.0.9')).toBe('6.6.6.6');
  });

  it('rejects settings it cannot use', () => {
    expect(() => clientIpResolver('rateLimiter.trustProxy', -1)).toThrow(/trustProxy.*-1/);
    expect(() => clientIpResolver('rateLimiter.trustProxy', 'loopback')).toThrow(/trustProxy.*"loopback"/);
  });

  it('describes framework settings for the warnings', () => {
    expect([true, false, undefined, 0, 1, 'loopback', [], ['10.0.0.1']].map(describeTrust)).toEqual([
      'all',
      'none',
      'none',
      'none',
      'some',
      'some',
      'none',
      'some',
    ]);
  });
});

describe('routeOverride', () => {
  const base = Object.freeze({ limit: 10, window: '1m', prefix: 'app', legacyHeaders: false });

  it('keeps app-wide options, replaces the layers a route gives, and derives a stable prefix', () => {
    const { options: merged, counters } = routeOverride('r', base, { limits: ['x'] }, 'GET /a');
    expect(counters).toBe('own');
    expect(merged).toEqual({ limits: ['x'], prefix: merged.prefix, legacyHeaders: false });
    expect(merged.prefix).toMatch(/^app\.r[0-9a-f]{8}$/);
    expect(routeOverride('r', base, { limit: 5, window: '1m' }, 'GET /a').options.prefix).toBe(merged.prefix);
    expect(routeOverride('r', base, { limit: 5, window: '1m' }, 'GET /b').options.prefix).not.toBe(merged.prefix);
    expect(routeOverride('r', base, { limit: 2, window: '1s', prefix: 'own' }, 'x').options).toEqual({
      limit: 2,
      window: '1s',
      prefix: 'own',
      legacyHeaders: false,
    });
  });

  it.each([
    [{ statusCode: 418 }, 'app'],
    [{ message: 'slow down' }, 'app'],
    [{ legacyHeaders: true, standardHeaders: 'draft-6' }, 'app'],
    [{ cost: () => 5 }, 'app'],
    [{ skip: () => false }, 'app'],
    [{}, 'app'],
    [{ failMode: 'closed' }, 'app-rebuilt'],
    [{ onDecision: () => {} }, 'app-rebuilt'],
    [{ store: {} }, 'own'],
    [{ prefix: 'p' }, 'own'],
    [{ limits: [] }, 'own'],
  ])('a route giving %o counts in the %s counters (issue 9, item 2)', (route, counters) => {
    const override = routeOverride('r', base, route, 'GET /a');
    expect(override.counters).toBe(counters);
    if (counters !== 'own') expect(override.options).toEqual({ ...base, ...route });
  });

  it('rejects a route value that is not an object', () => {
    expect(() => routeOverride('config.rateLimit of GET /', base, 'no', 'x')).toThrow(
      /config\.rateLimit of GET \/.*"no"/,
    );
  });
});
