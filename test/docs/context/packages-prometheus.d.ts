// Names the fragments of packages/prometheus/README.md take from their surroundings.
declare const app: import('express').Express;
declare const registry: import('prom-client').Registry;
/** The app's own audit log. */
declare function audit(event: import('@floodgate/core').DecisionEvent): void;
/** The module the README shows just above the snippet that uses it. */
declare function openTelemetryHooks(
  meter?: import('@opentelemetry/api').Meter,
): import('@floodgate/core').LimiterEvents;
