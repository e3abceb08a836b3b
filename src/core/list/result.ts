// The one result shape of everything that can fail with a sentence for the model or the user. Also the guard
// every decoder of untrusted JSON (tool arguments, stored records, host events, options) starts with.

/**
 * A value, or an error sentence that says what to do instead. `E` adds fields a failure carries
 * (an export that needs confirmation names the file it refused to overwrite).
 */
export type Result<T, E extends object = Record<never, never>> =
  | { readonly ok: true; readonly value: T }
  | ({ readonly ok: false; readonly error: string } & E)

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value }
}

export function fail(error: string): { readonly ok: false; readonly error: string } {
  return { ok: false, error }
}

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
