// The TUI binding for OpenCode 1.18 (`tui(api, options)`). The port (host.tsx), the list's host facts and
// events (list-facts.ts), the sidebar block in `sidebar_content`, the compact line in `app_bottom`, and the
// commands and Enter intercept that open the dialog or run a typed verb (commands.ts).

import type { TuiPlugin } from "@opencode-ai/plugin/tui"
import { ErrorBoundary } from "solid-js"
import { CompactLine } from "../compact-line.tsx"
import { createListSource, type Shell } from "../list-source.ts"
import { disposeAll, sidebarCounter, startShell } from "../shell.ts"
import { SidebarBlock } from "../sidebar.tsx"
import { registerCommands } from "./commands.ts"
import { forkStart } from "./fork-start.ts"
import { v1Host } from "./host.tsx"
import { v1Facts } from "./list-facts.ts"

export const tui: TuiPlugin = async (api, options) => {
  const directory = (): string => api.state.path?.directory || process.cwd()
  const host = v1Host(api)
  const started = await startShell({ host, directory: directory(), options })
  if (!started) return
  const { settings, store, limits, toast } = started

  const offs: (() => void)[] = []
  const known = v1Facts(api)
  const source = createListSource(known.facts, store, { limits })
  known.follow(source, offs)
  const startOf = forkStart(api, store, limits)
  const shell: Shell = { host, store, source, limits, toast, directory, startOf }
  const sidebars = sidebarCounter()

  api.slots.register({
    order: 350,
    slots: {
      sidebar_content(_ctx, props) {
        return (
          <ErrorBoundary fallback={() => null}>
            <SidebarBlock
              host={host}
              source={source}
              rows={settings.config.sidebarRows}
              sessionID={props.session_id}
              onShown={sidebars.onShown}
            />
          </ErrorBoundary>
        )
      },
      app_bottom() {
        return (
          <ErrorBoundary fallback={() => null}>
            <CompactLine host={host} source={source} session={host.session} sidebarShown={sidebars.shown} />
          </ErrorBoundary>
        )
      },
    },
  })

  registerCommands(api, shell, offs)

  api.lifecycle?.onDispose(() => disposeAll(offs))
}
