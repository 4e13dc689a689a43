import fc from 'fast-check';

/** Identities that broke hash tags elsewhere (reliability.md M12, M13, M22), plus size extremes. */
export const NASTY_IDENTITIES = [
  '',
  '{',
  '}',
  '{}',
  '}{',
  '}x{',
  '{}0',
  '}evil',
  'a{b}c',
  '{x}',
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(10 * 1024),
  '{'.repeat(10 * 1024),
  'x'.repeat(100 * 1024),
  'a\r\nSet-Cookie: x=1',
  '\u0000\u00ff*?',
  '\uD800',
  'user\uD800',
  'user\uDBFF',
  'user\uFFFD',
  '\uDC00\uD800',
  '😀',
  ' ',
  '~',
  '~abc',
  '203.0.113.7',
  '2001:db8::1',
];

const braceHeavy = fc.string({ unit: fc.constantFrom('{', '}', 'a', '~', ':', ' '), maxLength: 12 });
// Any UTF-16 code unit, so lone and reversed surrogates occur.
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)) });
const longText = fc.string({ minLength: 60, maxLength: 200, unit: 'grapheme-ascii' });

/** Arbitrary identities a key function could return: printable, binary, brace-heavy, surrogates, long. */
export const identityArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_IDENTITIES),
  fc.string(),
  fc.string({ unit: 'binary' }),
  braceHeavy,
  codeUnits,
  longText,
);
