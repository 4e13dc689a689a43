import schema from '../schema/limits.schema.json';

/**
 * The JSON Schema of a limits document (draft 2020-12), for validating documents in CI or an
 * admin tool. The same file ships as dist/limits.schema.json, for an editor's `"$schema"`.
 */
export const limitsSchema: Readonly<Record<string, unknown>> = schema;
