// The server's two channels to the person at the keyboard: the host's log (never stdout) and TUI toasts.
// Both never throw and never wait, so a slow or missing host cannot hold up a hook.

import type { PluginInput } from "@opencode-ai/plugin"
import { PLUGIN_ID } from "../core/list/words.ts"
import type { Toast } from "../core/session/toasts.ts"

export type Client = PluginInput["client"]

export type Log = (level: "warn" | "error" | "info", message: string) => void

/** A log that passes each distinct message to `write` once (the set is bounded so a flood cannot grow it). */
export function onceLogger(write: (level: "warn" | "error" | "info", message: string) => void): Log {
  const seen = new Set<string>()
  return (level, message) => {
    const key = `${level}:${message}`
    if (seen.has(key)) return
    if (seen.size > 500) seen.clear()
    seen.add(key)
    write(level, message)
  }
}

/** Writes to stderr (never stdout, which may be the host's protocol channel). */
export function stderrLog(level: "warn" | "error" | "info", message: string): void {
  try {
    process.stderr.write(`[${PLUGIN_ID}] ${level}: ${message}\n`)
  } catch {
    // Nowhere left to say it.
  }
}

/** Logs through the host, each distinct message once; stderr when the host cannot take it. */
export function makeLogger(client: Client): Log {
  return onceLogger((level, message) => {
    const fallback = () => stderrLog(level, message)
    try {
      const pending = client.app.log({ body: { service: PLUGIN_ID, level, message } })
      Promise.resolve(pending).catch(fallback)
    } catch {
      fallback()
    }
  })
}

/**
 * Shows a toast in the TUI attached to this server (a no-op without one). Session toasts and storage
 * warnings both go through it.
 */
export function showToast(client: Client, toast: Toast): void {
  try {
    const body = { ...toast, duration: toast.variant === "warning" ? 8000 : 5000 }
    Promise.resolve(client.tui.showToast({ body })).catch(() => {})
  } catch {
    // An older client without the TUI routes: nothing to show it on.
  }
}
