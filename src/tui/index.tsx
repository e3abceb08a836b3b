// TUI side of the plugin, the entry the host loads: reads the settings, opens the per-session store the
// server uses, and wires the parts of the shell: where the list comes from (list-source.ts), the sidebar
// block (sidebar.tsx) and the compact line where no sidebar shows (compact-line.tsx), the /todo
// dialog (dialog.tsx, editor.tsx, edits.ts) and the commands that open it (commands.ts).
// Decisions live in src/core; only types come from @opencode-ai/plugin/tui (its value exports throw
// outside the host); solid-js and @opentui/solid are the host's own copies at run time.

import type { TuiPlugin, TuiPluginModule } from "@opencode-ai/plugin/tui"
import { createSignal, ErrorBoundary } from "solid-js"
import { limitsOf, STORED_LIMITS } from "../core/config.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import { PLUGIN_ID, preview } from "../core/list/words.ts"
import type { Variant } from "../core/session/toasts.ts"
import { todoDir } from "../shared/paths.ts"
import { loadSettings } from "../shared/settings.ts"
import { createStore } from "../store/store.ts"
import { registerCommands } from "./commands.ts"
import { CompactLine } from "./compact-line.tsx"
import { createListSource, type Shell } from "./list-source.ts"
import { SidebarBlock } from "./sidebar.tsx"

/** Settings warnings one toast lists before "… and N more". */
const WARNING_LINES = 3

const tui: TuiPlugin = async (api, options) => {
  const directory = (): string => api.state.path?.directory || process.cwd()
  const settings = await loadSettings({ directory: directory(), options })
  if (!settings.config.enabled) return

  const toast = (variant: Variant, text: string, title = "Todo") => {
    try {
      // Warnings and errors stay longer: they ask the reader to do something.
      api.ui.toast({
        variant,
        title,
        message: text,
        duration: variant === "info" || variant === "success" ? 4000 : 8000,
      })
    } catch {
      // No toast support: nothing else to report through.
    }
  }
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
  const offs: (() => void)[] = []
  const limits = limitsOf(settings.config)
  const source = createListSource(api, store, offs, { limits })
  const shell: Shell = { api, store, source, limits, toast, directory }

  // How many of our sidebar blocks are mounted: the host mounts them exactly while its sidebar shows.
  const [sidebars, setSidebars] = createSignal(0)
  const onShown = (delta: 1 | -1) => setSidebars((n) => Math.max(0, n + delta))

  api.slots.register({
    order: 350,
    slots: {
      sidebar_content(_ctx, props) {
        return (
          <ErrorBoundary fallback={() => null}>
            <SidebarBlock
              api={api}
              source={source}
              rows={settings.config.sidebarRows}
              sessionID={props.session_id}
              onShown={onShown}
            />
          </ErrorBoundary>
        )
      },
      app_bottom() {
        return (
          <ErrorBoundary fallback={() => null}>
            <CompactLine api={api} source={source} sidebarShown={() => sidebars() > 0} />
          </ErrorBoundary>
        )
      },
    },
  })

  registerCommands(shell, offs)

  api.lifecycle?.onDispose(() => {
    for (const off of offs.splice(0)) {
      try {
        off()
      } catch {
        // Already gone.
      }
    }
  })
}

const plugin: TuiPluginModule & { id: string } = { id: PLUGIN_ID, tui }

export default plugin
