import { describe, expect, it } from 'vitest';
import { byApiKey, byHeader, byIp, byUser } from '@floodgate/core';

type Factory = () => unknown;

const cases: [string, Factory, string, string][] = [
  [
    'byIp ipv6Subnet 0',
    () => byIp({ ipv6Subnet: 0 }),
    'InvalidOptionError',
    'byIp.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got 0',
  ],
  [
    'byIp ipv6Subnet 129',
    () => byIp({ ipv6Subnet: 129 }),
    'InvalidOptionError',
    'byIp.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got 129',
  ],
  [
    'byIp ipv6Subnet 56.5',
    () => byIp({ ipv6Subnet: 56.5 }),
    'InvalidOptionError',
    'byIp.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got 56.5',
  ],
  [
    'byIp ipv6Subnet NaN',
    () => byIp({ ipv6Subnet: Number.NaN }),
    'InvalidOptionError',
    'byIp.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got NaN',
  ],
  [
    'byIp ipv6Subnet string',
    () => byIp({ ipv6Subnet: '56' as never }),
    'InvalidOptionTypeError',
    'byIp.ipv6Subnet must be an integer from 1 to 128 (an IPv6 prefix length), got "56"',
  ],
  [
    'byIp fallback empty',
    () => byIp({ fallback: '' }),
    'InvalidOptionTypeError',
    'byIp.fallback must be a non-empty string or undefined, got ""',
  ],
  [
    'byIp fallback null',
    () => byIp({ fallback: null as never }),
    'InvalidOptionTypeError',
    'byIp.fallback must be a non-empty string or undefined, got null',
  ],
  [
    'byIp unknown key',
    () => byIp({ subnet: 64 } as never),
    'InvalidOptionTypeError',
    'byIp: unknown option "subnet"; expected one of ipv6Subnet, fallback',
  ],
  [
    'byIp options not an object',
    () => byIp(56 as never),
    'InvalidOptionTypeError',
    'byIp: options must be an object, got 56',
  ],
  [
    'byHeader name empty',
    () => byHeader(''),
    'InvalidOptionTypeError',
    `byHeader.name must be a header name such as 'x-api-key', got ""`,
  ],
  [
    'byHeader name with space',
    () => byHeader('x tenant'),
    'InvalidOptionTypeError',
    `byHeader.name must be a header name such as 'x-api-key', got "x tenant"`,
  ],
  [
    'byHeader name not a string',
    () => byHeader(undefined as never),
    'InvalidOptionTypeError',
    `byHeader.name must be a header name such as 'x-api-key', got undefined`,
  ],
  [
    'byHeader hash not boolean',
    () => byHeader('x-token', { hash: 'yes' as never }),
    'InvalidOptionTypeError',
    'byHeader.hash must be a boolean, got "yes"',
  ],
  [
    'byHeader unknown key',
    () => byHeader('x-token', { hashed: true } as never),
    'InvalidOptionTypeError',
    'byHeader: unknown option "hashed"; expected one of hash',
  ],
  [
    'byApiKey header bad',
    () => byApiKey({ header: 'x:key' }),
    'InvalidOptionTypeError',
    `byApiKey.header must be a header name such as 'x-api-key', got "x:key"`,
  ],
  [
    'byApiKey unknown key',
    () => byApiKey({ name: 'x' } as never),
    'InvalidOptionTypeError',
    'byApiKey: unknown option "name"; expected one of header',
  ],
  [
    'byUser not a function',
    () => byUser('user.id' as never),
    'InvalidOptionTypeError',
    'byUser.fn must be a function, got "user.id"',
  ],
];

describe('key functions reject bad options at construction', () => {
  it.each(cases)('%s', (_label, make, name, message) => {
    let thrown: unknown;
    try {
      make();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ name, message, code: 'ERR_FLOODGATE_INVALID_OPTION' });
  });
});
