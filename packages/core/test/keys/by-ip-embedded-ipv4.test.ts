import { describe, expect, it } from 'vitest';
import { byIp, createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import { contextOf } from './context';

/**
 * Catalogue E48: an IPv6 address written with a dotted quad at its end (`2001:db8::1.2.3.4`) is
 * not IPv4-mapped (`::ffff:0:0/96`). It must stay IPv6 and be grouped by its /56 like any other,
 * or a host owning a /56 could pick the IPv4 bucket it lands in by choosing its last 32 bits.
 */

const keyOf = (ip: string, ipv6Subnet?: number) =>
  byIp(ipv6Subnet === undefined ? {} : { ipv6Subnet })(contextOf({ ip }));

describe('byIp and an IPv6 address with an embedded dotted quad (catalogue E48)', () => {
  it('keys 2001:db8::1.2.3.4 by its /56, never by the IPv4 address in its last 32 bits', () => {
    expect(keyOf('2001:db8::1.2.3.4')).toBe('2001:db8::');
    expect(keyOf('2001:db8::1.2.3.4')).not.toBe(keyOf('1.2.3.4'));
    expect(keyOf('2001:db8:abcd:12ff::198.51.100.7')).toBe('2001:db8:abcd:1200::');
  });

  it('gives the dotted and the hex spelling of one address the same key, at /56 and at /128', () => {
    expect(keyOf('2001:db8::1.2.3.4')).toBe(keyOf('2001:db8::102:304'));
    expect(keyOf('2001:db8::1.2.3.4', 128)).toBe('2001:db8::102:304');
    expect(keyOf('2001:db8::102:304', 128)).toBe('2001:db8::102:304');
  });

  it('groups rotating dotted quads inside one /56 and separates the next /56', () => {
    const inside = [
      '2001:db8::1.2.3.4',
      '2001:db8::5.6.7.8',
      '2001:db8:0:ff::255.255.255.255',
      '2001:db8:0:12::10.0.0.1',
    ];
    expect(new Set(inside.map((ip) => keyOf(ip)))).toEqual(new Set(['2001:db8::']));
    expect(keyOf('2001:db8:0:100::1.2.3.4')).toBe('2001:db8:0:100::');
  });

  it('drops a port after the bracketed form and keeps it IPv6', () => {
    expect(keyOf('[2001:db8::1.2.3.4]:443')).toBe('2001:db8::');
  });

  it('still maps the IPv4-mapped dotted form to IPv4 (the control)', () => {
    expect(keyOf('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(keyOf('::ffff:1.2.3.4')).toBe(keyOf('1.2.3.4'));
  });

  it('through a limiter: dotted-quad addresses in one /56 share a bucket, and the IPv4 address keeps its own', async () => {
    // A frozen clock: on the real one a minute boundary between the requests would refill the bucket.
    const clock = () => Date.UTC(2026, 0, 1);
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }) }],
    });
    const consume = (ip: string) => limiter.consume(contextOf({ ip }));
    expect((await consume('2001:db8::1.2.3.4')).allowed).toBe(true);
    expect((await consume('2001:db8::5.6.7.8')).allowed).toBe(false);
    expect((await consume('2001:db8:0:ff::9.9.9.9')).allowed).toBe(false);
    expect((await consume('1.2.3.4')).allowed).toBe(true);
    expect((await consume('5.6.7.8')).allowed).toBe(true);
    expect((await consume('2001:db8:0:100::1.2.3.4')).allowed).toBe(true);
  });
});
