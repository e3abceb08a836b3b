// The store's warnings: each problem is said once per key, a failing warning sink never breaks storage, and
// session ids are quoted safely in every message.

export interface Warnings {
  /** Says `message` unless a warning with `key` was said before. */
  once(key: string, message: string): void
  /** Lets a warning with `key` be said again. */
  allow(key: string): void
}

export function createWarnings(sink: (message: string) => void): Warnings {
  const said = new Set<string>()
  return {
    once(key, message) {
      if (said.has(key)) return
      said.add(key)
      try {
        sink(message)
      } catch {
        // A failing warning sink must not break storage.
      }
    },
    allow(key) {
      said.delete(key)
    },
  }
}

/** Session ids in messages: quoted, escaped, and cut short (hostile ids can be huge or contain control bytes). */
export function sessionLabel(session: string): string {
  return JSON.stringify(session.length > 40 ? `${session.slice(0, 39)}…` : session)
}
