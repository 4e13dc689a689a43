import { describe, expect, it } from 'vitest';
import { byApiKey, byHeader } from '@floodgate/core';
import { hashSecret } from '../../src/keys/identity';
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

  it("reads a Bearer token when told header: 'authorization', with the same key for the same secret", async () => {
    const bearer = byApiKey({ header: 'Authorization' });
    expect(await bearer(contextOf({ headers: { authorization: `bearer   ${secret}` } }))).toBe(
      await hashSecret(secret),
    );
    expect(await bearer(contextOf({ headers: { 'x-api-key': secret } }))).toBeUndefined();
  });

  it('reads one header only: a second credential cannot choose which key counts', async () => {
    // A client authenticated by one header must not escape its limit by sending a fresh value in another.
    const viaHeader = byApiKey();
    const viaBearer = byApiKey({ header: 'authorization' });
    for (const fresh of ['x1', 'x2', 'x3']) {
      const ctx = contextOf({ headers: { 'x-api-key': fresh, authorization: 'Bearer key-b' } });
      expect(await viaBearer(ctx)).toBe(await hashSecret('key-b'));
      expect(await viaHeader(ctx)).toBe(await hashSecret(fresh));
    }
    expect(await viaHeader(contextOf({ headers: { authorization: 'Bearer key-b' } }))).toBeUndefined();
  });

  it('reads a configured header case-insensitively', async () => {
    const ctx = contextOf({ headers: { 'x-client-key': secret } });
    expect(await byApiKey({ header: 'X-Client-Key' })(ctx)).toBe(await hashSecret(secret));
    expect(await byApiKey()(ctx)).toBeUndefined();
  });

  it('does not apply without a key or with another Authorization scheme', async () => {
    const bearer = byApiKey({ header: 'authorization' });
    expect(await byApiKey()(contextOf())).toBeUndefined();
    expect(await bearer(contextOf({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }))).toBeUndefined();
    expect(await bearer(contextOf({ headers: { authorization: 'Bearer' } }))).toBeUndefined();
  });
});
