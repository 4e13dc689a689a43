import { describe, expect, it } from 'vitest';
import { byApiKey, byHeader, hashSecret } from '@floodgate/core';
import { contextOf } from './context';

describe('byHeader', () => {
  it('matches the header name case-insensitively and trims the value', async () => {
    const ctx = contextOf({ headers: { 'x-tenant-id': '  acme ' } });
    expect(await byHeader('X-Tenant-ID')(ctx)).toBe('acme');
    expect(await byHeader('x-tenant-id')(ctx)).toBe('acme');
  });

  it('does not apply when the header is absent or blank', async () => {
    expect(await byHeader('x-tenant-id')(contextOf())).toBeUndefined();
    expect(await byHeader('x-tenant-id')(contextOf({ headers: { 'x-tenant-id': '   ' } }))).toBeUndefined();
  });

  it('hashes the value when asked', async () => {
    const key = await byHeader('X-Token', { hash: true })(contextOf({ headers: { 'x-token': 'secret-1' } }));
    expect(key).toBe(await hashSecret('secret-1'));
    expect(key).not.toContain('secret-1');
  });
});

describe('byApiKey', () => {
  const secret = 'sk_live_0123456789abcdef';

  it('hashes the x-api-key header and never returns the raw key', async () => {
    const key = await byApiKey()(contextOf({ headers: { 'x-api-key': secret } }));
    expect(key).toBe(await hashSecret(secret));
    expect(key).toMatch(/^~[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain(secret);
  });

  it('falls back to a Bearer token, with the same key for the same secret', async () => {
    const viaBearer = await byApiKey()(contextOf({ headers: { authorization: `bearer   ${secret}` } }));
    expect(viaBearer).toBe(await hashSecret(secret));
  });

  it('prefers the API key header over the Authorization header', async () => {
    const ctx = contextOf({ headers: { 'x-api-key': 'key-a', authorization: 'Bearer key-b' } });
    expect(await byApiKey()(ctx)).toBe(await hashSecret('key-a'));
  });

  it('reads a configured header case-insensitively', async () => {
    const ctx = contextOf({ headers: { 'x-client-key': secret } });
    expect(await byApiKey({ header: 'X-Client-Key' })(ctx)).toBe(await hashSecret(secret));
    expect(await byApiKey()(ctx)).toBeUndefined();
  });

  it('does not apply without a key or with another Authorization scheme', async () => {
    expect(await byApiKey()(contextOf())).toBeUndefined();
    expect(await byApiKey()(contextOf({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }))).toBeUndefined();
    expect(await byApiKey()(contextOf({ headers: { authorization: 'Bearer' } }))).toBeUndefined();
  });
});
