import { describe, expect, it } from 'vitest';
import { byIp, createLimiter, fixedWindow, MemoryStore } from '@floodgate/core';
import { contextOf } from './context';

/**
 * Issue 19, item 9: every way of writing one client gives one key. An IPv6 address that embeds an
 * IPv4 client (NAT64, SIIT, mapped, compatible, 6to4, Teredo) is keyed as that IPv4 address, never
 * by the IPv6 /56 it falls in (which every client of a NAT64 gateway shares), and brackets without
 * a port are read like brackets with one.
 */

const keyOf = (ip: string, ipv6Subnet?: number) =>
  byIp(ipv6Subnet === undefined ? {} : { ipv6Subnet })(contextOf({ ip }));

/** Every spelling of 198.51.100.7 an IPv6 server or a proxy can hand the limiter. */
const IPV4_FORMS = [
  '198.51.100.7',
  '198.51.100.7:443',
  '[198.51.100.7]:443',
  '::ffff:198.51.100.7',
  '::ffff:c633:6407',
  '[::ffff:198.51.100.7]',
  '::ffff:0:198.51.100.7',
  '::ffff:0:c633:6407',
  '[::FFFF:0:198.51.100.7]:8080',
  '64:ff9b::198.51.100.7',
  '64:ff9b::c633:6407',
  '[64:ff9b::198.51.100.7]',
  '[64:ff9b::198.51.100.7]:443',
  '64:ff9b:0:0:0:0:c633:6407',
  '::198.51.100.7',
  '::c633:6407',
];

/** 6to4 and Teredo carry the IPv4 address of a site or a NAT on the internet: 93.184.216.34 here. */
const TUNNEL_FORMS = [
  '2002:5db8:d822::1',
  '2002:5db8:d822:12:34:56:78:9a',
  '[2002:5db8:d822::1]:80',
  '2001:0:4136:e378:8000:63bf:a247:27dd',
  '[2001::4136:e378:8000:63bf:a247:27dd]',
];

describe('byIp: one key for every form of a client (issue 19, item 9)', () => {
  it.each(IPV4_FORMS)('keys %s as 198.51.100.7', (form) => {
    expect(keyOf(form)).toBe('198.51.100.7');
    expect(keyOf(form, 128)).toBe('198.51.100.7');
  });

  it.each(TUNNEL_FORMS)('keys %s as the public IPv4 address in it, 93.184.216.34', (form) => {
    expect(keyOf(form)).toBe('93.184.216.34');
    expect(keyOf(form, 128)).toBe('93.184.216.34');
  });

  it('keeps two NAT64 clients apart (before: both were 64:ff9b::, one bucket for every IPv4 client)', () => {
    expect(keyOf('64:ff9b::1.2.3.4')).toBe('1.2.3.4');
    expect(keyOf('64:ff9b::5.6.7.8')).toBe('5.6.7.8');
  });

  it('keeps two SIIT clients apart (before: every ::ffff:0:a.b.c.d was ::)', () => {
    expect(keyOf('::ffff:0:1.2.3.4')).toBe('1.2.3.4');
    expect(keyOf('::ffff:0:5.6.7.8')).toBe('5.6.7.8');
  });

  it('keys the local-use NAT64 prefix 64:ff9b:1::/48 by the whole address: its IPv4 position is the operator’s choice', () => {
    expect(keyOf('64:ff9b:1::1.2.3.4')).toBe('64:ff9b:1::102:304');
    expect(keyOf('64:ff9b:1::5.6.7.8')).toBe('64:ff9b:1::506:708');
    expect(keyOf('64:ff9b:1:102:3:400::')).toBe('64:ff9b:1:102:3:400::');
  });

  it('keeps 6to4 and Teredo addresses IPv6 when the IPv4 address in them is not public', () => {
    // A relay outside our network delivers to a private address there: another host than ours.
    expect(keyOf('2002:a00:1::1')).toBe('2002:a00:1::');
    expect(keyOf('2002:c0a8:101:ff::1')).toBe('2002:c0a8:101::');
    expect(keyOf('2002:c633:6407::1')).toBe('2002:c633:6407::');
    expect(keyOf('2001:0:4136:e378:8000:63bf:f5ff:fffe')).toBe('2001:0:4136:e300::');
  });

  it('keeps the loopback and unspecified addresses IPv6 (they are not IPv4-compatible addresses)', () => {
    expect(keyOf('::1', 128)).toBe('::1');
    expect(keyOf('::', 128)).toBe('::');
  });

  it('an IPv6 address that merely ends in a dotted quad stays IPv6 (catalogue E48)', () => {
    expect(keyOf('2001:db8::1.2.3.4')).toBe('2001:db8::');
    expect(keyOf('64:ff9b:0:1::1.2.3.4')).toBe('64:ff9b::');
  });

  /** Every spelling of a host in 2001:db8:1:200::/56. */
  const IPV6_FORMS = [
    '2001:db8:1:2::1',
    '[2001:db8:1:2::1]',
    '[2001:db8:1:2::1]:443',
    '2001:DB8:1:2:0:0:0:1',
    '2001:0db8:0001:0002:0000:0000:0000:0001',
    '2001:db8:1:2::1%eth0',
    '[2001:db8:1:2::1%eth0]:443',
    '[2001:db8:1:2::1%25eth0]',
    '2001:db8:1:2::0.0.0.1',
  ];

  it.each(IPV6_FORMS)('keys %s as its /56, 2001:db8:1::', (form) => {
    expect(keyOf(form)).toBe('2001:db8:1::');
    expect(keyOf(form, 128)).toBe('2001:db8:1:2::1');
  });

  it('keeps what is not an address as it is (the limiter hashes it)', () => {
    for (const value of ['[2001:db8::1', '2001:db8::1]', '[not-an-address]', '[]', '[1.2.3]:80', '0x7f.1']) {
      expect(keyOf(value)).toBe(value);
    }
  });

  it('through a limiter: a NAT64 client and the same client over IPv4 share a bucket, another NAT64 client has its own', async () => {
    // A frozen clock: on the real one a minute boundary between the requests would refill the bucket.
    const clock = () => Date.UTC(2026, 0, 1);
    const limiter = createLimiter({
      store: new MemoryStore({ clock }),
      clock,
      limits: [{ name: 'ip', key: byIp(), algorithm: fixedWindow({ limit: 1, window: '1m' }) }],
    });
    const consume = async (ip: string) => (await limiter.consume(contextOf({ ip }))).allowed;
    expect(await consume('64:ff9b::1.2.3.4')).toBe(true);
    expect(await consume('1.2.3.4')).toBe(false);
    expect(await consume('[::ffff:0:1.2.3.4]:80')).toBe(false);
    expect(await consume('64:ff9b::5.6.7.8')).toBe(true);
    expect(await consume('::ffff:0:9.9.9.9')).toBe(true);
  });
});
