import { describe, expect, it } from 'vitest';
import { byIp } from '@floodgate/core';
import type { ByIpOptions } from '@floodgate/core';
import { contextOf } from './context';

const keyOf = async (ip: string | undefined, options?: ByIpOptions) =>
  byIp(options)(contextOf(ip === undefined ? {} : { ip }));

describe('byIp', () => {
  it('keeps an IPv4 address as it is', async () => {
    expect(await keyOf('203.0.113.7')).toBe('203.0.113.7');
  });

  it('gives addresses within one /56 the same key, the /56 network without its suffix', async () => {
    expect(await keyOf('2001:db8:abcd:1234:5678::1')).toBe('2001:db8:abcd:1200::');
    expect(await keyOf('2001:db8:abcd:12ff:ffff:ffff:ffff:ffff')).toBe('2001:db8:abcd:1200::');
  });

  it('gives addresses in different /56 networks different keys', async () => {
    const a = await keyOf('2001:db8:abcd:1200::1');
    const b = await keyOf('2001:db8:abcd:1300::1');
    expect(a).toBe('2001:db8:abcd:1200::');
    expect(b).toBe('2001:db8:abcd:1300::');
  });

  it('treats IPv4-mapped IPv6, in dotted or hex form, as the IPv4 address', async () => {
    expect(await keyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(await keyOf('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(await keyOf('::FFFF:203.0.113.7')).toBe(await keyOf('203.0.113.7'));
  });

  it('drops a port after the address (Azure-style X-Forwarded-For), and keeps anything else as it is', async () => {
    expect(await keyOf('203.0.113.7:5678')).toBe('203.0.113.7');
    expect(await keyOf('[2001:db8:abcd:1234::1]:443')).toBe('2001:db8:abcd:1200::');
    expect(await keyOf('[::ffff:203.0.113.7]:80')).toBe('203.0.113.7');
    expect(await keyOf('example.test:80')).toBe('example.test:80');
    expect(await keyOf('[not-an-address]:80')).toBe('[not-an-address]:80');
    expect(await keyOf('999.1.1.1:80')).toBe('999.1.1.1:80');
  });

  it('does not collapse IPv4 clients into one IPv6 network', async () => {
    expect(await keyOf('::ffff:198.51.100.1')).not.toBe(await keyOf('::ffff:198.51.100.2'));
  });

  it('masks to a configurable subnet', async () => {
    expect(await keyOf('2001:db8:abcd:1234:5678::1', { ipv6Subnet: 64 })).toBe('2001:db8:abcd:1234::');
    expect(await keyOf('2001:db8:abcd:1234:5678::1', { ipv6Subnet: 48 })).toBe('2001:db8:abcd::');
    expect(await keyOf('2001:db8:abcd:1234:5678::1', { ipv6Subnet: 60 })).toBe('2001:db8:abcd:1230::');
    expect(await keyOf('2001:db8::1', { ipv6Subnet: 128 })).toBe('2001:db8::1');
    expect(await keyOf('ffff::1', { ipv6Subnet: 1 })).toBe('8000::');
  });

  it('drops a zone id before masking', async () => {
    expect(await keyOf('fe80::1%eth0', { ipv6Subnet: 128 })).toBe('fe80::1');
    expect(await keyOf('fe80::1%eth0')).toBe('fe80::');
  });

  it('returns a string that is not an address unchanged (the limiter hashes what is unsafe)', async () => {
    expect(await keyOf('not an ip')).toBe('not an ip');
    expect(await keyOf('01.2.3.4')).toBe('01.2.3.4');
  });

  it('uses the fallback key when no address is known, and skips the layer when fallback is undefined', async () => {
    expect(await keyOf(undefined)).toBe('unknown');
    expect(await keyOf('')).toBe('unknown');
    expect(await keyOf(undefined, { fallback: 'no-ip' })).toBe('no-ip');
    expect(await keyOf(undefined, { fallback: undefined })).toBeUndefined();
  });

  it('does not mutate the options object', () => {
    const options = Object.freeze({ ipv6Subnet: 64 });
    byIp(options);
    expect(options).toEqual({ ipv6Subnet: 64 });
  });
});
