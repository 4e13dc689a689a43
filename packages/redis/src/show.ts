/** A value for an error message: numbers and short strings as they are, never a large object or a secret. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  return Array.isArray(value) ? 'an array' : 'an object';
}
