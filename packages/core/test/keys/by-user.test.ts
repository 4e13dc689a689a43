import { describe, expect, it } from 'vitest';
import { byUser } from '@floodgate/core';
import { contextOf } from './context';

interface Req {
  user?: { id?: unknown };
}

// Called through an async function so that a synchronous throw and a rejection look alike.
const userKey = async (req: Req) => byUser((r: Req) => r.user?.id as string | number | undefined)(contextOf({ req }));

describe('byUser', () => {
  it('passes the framework request to the function and keeps a string id', async () => {
    expect(await userKey({ user: { id: 'u-42' } })).toBe('u-42');
  });

  it('turns a finite number into a string', async () => {
    expect(await userKey({ user: { id: 42 } })).toBe('42');
    expect(await userKey({ user: { id: 0 } })).toBe('0');
  });

  it('does not apply to anonymous requests (undefined, null or empty id)', async () => {
    expect(await userKey({})).toBeUndefined();
    expect(await userKey({ user: { id: null } })).toBeUndefined();
    expect(await userKey({ user: { id: '' } })).toBeUndefined();
  });

  it('accepts an async function', async () => {
    const key = byUser(async (req: Req) => (req.user ? 'async-user' : undefined));
    expect(await key(contextOf({ req: { user: {} } }))).toBe('async-user');
  });

  it('rejects ids that are neither strings nor finite numbers', async () => {
    await expect(userKey({ user: { id: Number.NaN } })).rejects.toThrow(
      'byUser: the function must return a string, a finite number, null or undefined, got NaN',
    );
    await expect(userKey({ user: { id: { id: 1 } } })).rejects.toThrow('got an object');
  });
});
