import { InvalidOptionError, rulesFromDocument } from '@floodgate/core';
import type { DocumentOptions, LimitRule } from '@floodgate/core';

/** What a limits source needs from code: see DocumentOptions in @floodgate/core. */
export type SourceOptions<Req> = Omit<DocumentOptions<Req>, 'source'>;

/** Longest document a source reads: bounds memory and parse time for a file or key gone wrong. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/**
 * The rules a document's text describes; throws a coded error naming `source` (and the path in
 * the document) when the text is not JSON or not a valid document.
 */
export function rulesFromText<Req>(text: string, source: string, options: SourceOptions<Req>): LimitRule<Req>[] {
  if (text.length > MAX_DOCUMENT_BYTES) {
    throw new InvalidOptionError(`${source} is longer than ${MAX_DOCUMENT_BYTES} characters (${text.length})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionError(`${source} is not JSON: ${(error as Error).message}`);
  }
  return rulesFromDocument(document, { ...options, source });
}
