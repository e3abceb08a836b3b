// The TUI port (../host.ts) on OpenCode 2: the session, dialogs, theme, renderer, toast and kept values. The
// session comes from the router, the host's promise-shaped dialogs are adapted to the shell's callbacks, the
// colours are the theme's tokens, and the values go to the plugin's durable storage (context.ts names the
// sources).

import type { RGBA } from "@opentui/core"
import type { Tone } from "../../core/view/sidebar.ts"
import type { DialogPort, KeptValues, TuiHost, TuiRenderer } from "../host.ts"
import { keptForThisRun } from "../shell.ts"
import type { V2Context, V2Dialog, V2Storage } from "./context.ts"

/** The first colour found along `paths` in the theme (token names moved between 2.x releases). */
function token(theme: unknown, paths: readonly string[]): RGBA | string | undefined {
  for (const path of paths) {
    let at: unknown = theme
    for (const key of path.split("."))
      at = at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined
    if (at !== undefined && at !== null && typeof at !== "function" && (typeof at !== "object" || "r" in at))
      return at as RGBA | string
  }
  return undefined
}

// OpenCode 2.0.15's own TUI reads text.base, text.muted and text.feedback.<kind>.base (seen in its binary; the
// sidebar's glyphs had no colour before `.base` was tried); packages/theme/src/tui/types.ts@f54581e5 names them
// text.default, text.subdued, text.feedback.<kind>.default. Both are tried, 2.0.15's first.
const TONES: Record<"text" | "muted" | "warning" | "error" | "success", readonly string[]> = {
  text: ["text.base", "text.default"],
  muted: ["text.muted", "text.subdued", "text.base", "text.default"],
  warning: ["text.feedback.warning.base", "text.feedback.warning.default", "text.warning", "warning"],
  error: ["text.feedback.error.base", "text.feedback.error.default", "text.error", "error"],
  success: ["text.feedback.success.base", "text.feedback.success.default", "text.success", "success"],
}

export function v2Color(theme: unknown, tone: Tone): RGBA | string | undefined {
  switch (tone) {
    case "title":
    case "text":
      return token(theme, TONES.text)
    case "in_progress":
      return token(theme, TONES.warning)
    case "blocked":
    case "error":
      return token(theme, TONES.error)
    case "completed":
      return token(theme, TONES.success)
    default:
      return token(theme, TONES.muted)
  }
}

/**
 * The host's dialogs settle once, on a choice or on close, and showing a new dialog closes the one open.
 * A dialog's outcome is acted on only while it is the newest one shown, so closing an old dialog by
 * showing the next never runs the old one's cancel step over the new one.
 */
function v2Dialogs(dialog: V2Dialog | undefined): DialogPort {
  let shown = 0
  const open = <T>(show: () => Promise<T> | undefined, then: (value: T) => void) => {
    const mine = ++shown
    let pending: Promise<T> | undefined
    try {
      pending = show()
    } catch {
      return
    }
    pending?.then(
      (value) => {
        if (mine === shown) then(value)
      },
      () => {},
    )
  }
  return {
    select: (input) =>
      open(
        () =>
          dialog?.select({
            title: input.title,
            ...(input.placeholder !== undefined ? { placeholder: input.placeholder } : {}),
            options: input.options,
            ...(input.current !== undefined ? { current: input.current } : {}),
          }),
        (value) => {
          if (value !== undefined) input.onSelect(value)
        },
      ),
    prompt: (input) =>
      open(
        () =>
          dialog?.prompt({
            title: input.title,
            ...(input.placeholder !== undefined ? { placeholder: input.placeholder } : {}),
            ...(input.value !== undefined ? { value: input.value } : {}),
          }),
        (value) => (value === undefined ? input.onCancel() : input.onConfirm(value)),
      ),
    confirm: (input) =>
      open(
        () => dialog?.confirm({ title: input.title, message: input.message }),
        (ok) => (ok === true ? input.onConfirm() : input.onCancel()),
      ),
    alert: (input) =>
      open(
        () => dialog?.alert({ title: input.title, message: input.message }),
        () => input.onConfirm(),
      ),
    clear: () => {
      shown++
      dialog?.clear()
    },
  }
}

/** The storage file the kept values live in (OpenCode 2 names it after the plugin and this key). */
const KEPT_STORE = "kept"

/**
 * Kept values in `storage.store` (one JSON object, made on first use), or in memory for this run where
 * the context has no storage or it fails to open.
 */
export function v2Kept(storage: V2Storage | undefined): KeptValues {
  if (typeof storage?.store !== "function") return keptForThisRun()
  let opened: ReturnType<NonNullable<V2Storage["store"]>> | undefined
  let fallback: KeptValues | undefined
  const open = () => {
    if (opened || fallback) return
    try {
      opened = storage.store?.<Record<string, unknown>>(KEPT_STORE, { initial: {} })
    } catch {
      opened = undefined
    }
    if (!opened) fallback = keptForThisRun()
  }
  return {
    get(key) {
      open()
      if (fallback) return fallback.get(key)
      try {
        return (opened?.[0] as Record<string, unknown> | undefined)?.[key]
      } catch {
        return undefined
      }
    },
    set(key, value) {
      open()
      if (fallback) return fallback.set(key, value)
      try {
        opened?.[1]((draft) => {
          ;(draft as Record<string, unknown>)[key] = value
        }).catch(() => {})
      } catch {
        // Not kept: the question comes again next time.
      }
    },
    get keptFor() {
      open()
      return fallback ? fallback.keptFor : "install"
    },
  }
}

export function v2Host(context: V2Context): TuiHost {
  return {
    session: () => {
      const route = context.ui?.router?.current?.()
      return route?.type === "session" && typeof route.sessionID === "string" && route.sessionID
        ? route.sessionID
        : undefined
    },
    dialog: v2Dialogs(context.ui?.dialog),
    renderer: context.renderer as TuiRenderer,
    color: (tone) => v2Color(context.theme, tone),
    toast: (input) => context.ui?.toast?.show?.(input),
    kept: v2Kept(context.storage),
  }
}
