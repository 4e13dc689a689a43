/** Stable codes of DurableObjectStore's warnings; the README documents each under the same name. */
export const DurableObjectWarning = {
  storage: 'WARN_FLOODGATE_DURABLE_OBJECT_STORAGE',
} as const;

/** Why FloodgateObject refuses every call on key-value storage, and the setting that fixes it. */
export const NEEDS_SQLITE =
  'FloodgateObject needs SQLite storage, and its class was created with the older key-value storage ' +
  '(under new_classes in the migrations of wrangler.jsonc or wrangler.toml). Declare the class under ' +
  'new_sqlite_classes instead; a class already deployed on key-value storage cannot be converted, so ' +
  'export FloodgateObject under a new name, declare that one under new_sqlite_classes in a new migration, ' +
  'and bind it (see the README, WARN_FLOODGATE_DURABLE_OBJECT_STORAGE)';
