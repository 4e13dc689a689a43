import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { byIp } from '@floodgate/core';
import { contextOf } from './context';

/**
 * byIp answers the plain forms (dotted IPv4, and IPv4-mapped as a dual-stack Node server reports
 * it) without parsing them: the key must be what the parse gives, for every string near those forms.
 */

const keyOf = (ip: string) => byIp()(contextOf({ ip }));

/** The key the full parse gives an IPv4 string, or the string itself when it is not an address. */
function parsedKey(text: string): string {
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text).toString() : text;
}

const NEAR = [
  '0.0.0.0',
  '1.2.3.4',
  '9.99.199.255',
  '255.255.255.255',
  '256.1.1.1',
  '1.1.1.256',
  '01.2.3.4',
  '1.02.3.4',
  '1.2.3.00',
  '1.2.3',
  '1.2.3.4.5',
  '1.2.3.4.',
  '.1.2.3.4',
  '1..2.3',
  '1.2.3.4 ',
  '1.2.3.-4',
  '1234.1.1.1',
  '１.2.3.4',
  '',
];

describe('byIp: the plain forms keyed without a parse', () => {
  it.each(NEAR)('%j keys as the parse does', (text) => {
    expect(keyOf(text === '' ? 'x' : text)).toBe(text === '' ? 'x' : parsedKey(text));
  });

  it.each(NEAR.filter((text) => text !== ''))('::ffff:%s keys as the parse does', (text) => {
    const mapped = `::ffff:${text}`;
    const parsed = ipaddr.IPv6.isValid(mapped) ? ipaddr.IPv6.parse(mapped).toIPv4Address().toString() : undefined;
    if (parsed !== undefined) expect(keyOf(mapped)).toBe(parsed);
    else expect(keyOf(mapped)).not.toBe(text);
  });

  it('keeps a two-digit part that starts with a digit other than 0', () => {
    expect(keyOf('10.20.30.40')).toBe('10.20.30.40');
    expect(keyOf('::ffff:10.20.30.40')).toBe('10.20.30.40');
  });
});
