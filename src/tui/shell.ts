// Starting the TUI shell, the same in every host. The settings (their warnings as one toast), the per-session
// store the server uses, the toast every part reports through, the count of mounted sidebar blocks the
// compact line follows, and kept values for a host with no store of its own. A host binding (v1/, v2/) adds
// where the list's host facts come from and where the parts are mounted.

import { createSignal } from "solid-js"
import { limitsOf, type Resolved, STORED_LIMITS } from "../core/config.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import type { Limits } from "../core/list/types.ts"
import { preview } from "../core/list/words.ts"
import type { Variant } from "../core/session/toasts.ts"
import { todoDir } from "../shared/paths.ts"
import { loadSettings } from "../shared/settings.ts"
import { createStore, type Store } from "../store/store.ts"
import type { KeptValues, TuiHost } from "./host.ts"
import type { Shell } from "./list-source.ts"

/** Settings warnings one toast lists before "… and N more". */
const WARNING_LINES = 3

/** The shell's toast: warnings and errors stay longer, since they ask the reader to do something. */
export function hostToast(host: Pick<TuiHost, "toast">): Shell["toast"] {
  return (variant: Variant, message: string, title = "Todo", sessionID?: string) => {
    try {
      host.toast({
        variant,
        title,
        message,
        duration: variant === "info" || variant === "success" ? 4000 : 8000,
        ...(sessionID ? { sessionID } : {}),
      })
    } catch {
      // No toast support: nothing else to report through.
    }
  }
}

export interface ShellStart {
  readonly settings: Resolved
  readonly store: Store
  readonly limits: Limits
  readonly toast: Shell["toast"]
}

/** Reads the settings and opens the store; undefined when the plugin is turned off. */
export async function startShell(input: {
  readonly host: Pick<TuiHost, "toast">
  readonly directory: string
  readonly options: unknown
}): Promise<ShellStart | undefined> {
  const settings = await loadSettings({ directory: input.directory, options: input.options })
  if (!settings.config.enabled) return undefined
  const toast = hostToast(input.host)
  const { warnings } = settings
  if (warnings.length > 0) {
    const shown = warnings.slice(0, WARNING_LINES).map((w) => preview(w, 160))
    const more = warnings.length > WARNING_LINES ? [`… and ${warnings.length - WARNING_LINES} more`] : []
    toast("warning", [...shown, ...more].join("\n"), "Todo settings")
  }
  const store = createStore({
    dir: todoDir(),
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (text) => toast("warning", text),
  })
  return { settings, store, limits: limitsOf(settings.config), toast }
}

/** Values kept in memory for this run: where the host offers no store of its own. */
export function keptForThisRun(): KeptValues {
  const values = new Map<string, unknown>()
  return {
    get: (key) => values.get(key),
    set: (key, value) => {
      values.set(key, value)
    },
    keptFor: "run",
  }
}

/** How many sidebar blocks are mounted: a host mounts them exactly while its sidebar shows. */
export function sidebarCounter(): { shown: () => boolean; onShown: (delta: 1 | -1) => void } {
  const [count, setCount] = createSignal(0)
  return {
    shown: () => count() > 0,
    onShown: (delta) => setCount((n) => Math.max(0, n + delta)),
  }
}

/** Runs every cleanup once, newest registrations too; one that throws does not stop the others. */
export function disposeAll(offs: (() => void)[]): void {
  for (const off of offs.splice(0)) {
    try {
      off()
    } catch {
      // Already gone.
    }
  }
}
