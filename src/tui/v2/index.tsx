// The TUI binding for OpenCode 2 (`setup(context)`). The port (host.ts), the list's host facts, events and
// RPC (list-facts.ts), the sidebar block, the compact line, and `/todo` as a palette entry and a slash
// command whose typed verbs run here at no model cost (where each goes: docs/design.md). Every capability is
// checked first; a context without slots (a 1.x host calling `setup`) adds nothing.

import { ErrorBoundary } from "solid-js"
import { COMMAND_DESCRIPTION } from "../../core/list/command.ts"
import { PLUGIN_ID } from "../../core/list/words.ts"
import { TODO_RPC } from "../../shared/v2-rpc.ts"
import { CompactLine } from "../compact-line.tsx"
import { createListSource, type Shell } from "../list-source.ts"
import { disposeAll, sidebarCounter, startShell } from "../shell.ts"
import { SidebarBlock } from "../sidebar.tsx"
import { runTyped } from "../typed-verbs.ts"
import type { V2Context, V2RpcClient, V2SlotClaim } from "./context.ts"
import { v2Host } from "./host.ts"
import { v2Facts } from "./list-facts.ts"

/** The palette and slash command's id. */
export const OPEN_COMMAND = `${PLUGIN_ID}.open`

function rpcClient(context: V2Context): V2RpcClient | undefined {
  try {
    return context.client?.rpc?.(TODO_RPC)
  } catch {
    return undefined
  }
}

export async function setup(context: V2Context): Promise<(() => void) | undefined> {
  const slot = context.ui?.slot
  if (typeof slot !== "function" || typeof context.keymap?.layer !== "function") return undefined
  const directory = (): string =>
    context.location?.directory || context.data?.location?.default?.()?.directory || process.cwd()
  const host = v2Host(context)
  const started = await startShell({ host, directory: directory(), options: context.options ?? {} })
  if (!started) return undefined
  const { settings, store, limits, toast } = started

  const offs: (() => void)[] = []
  const rpc = rpcClient(context)
  const known = v2Facts(context, rpc)
  const source = createListSource(known.facts, store, { limits })
  known.follow(source, toast, offs)
  const shell: Shell = { host, store, source, limits, toast, directory, remote: known.run }
  const sidebars = sidebarCounter()

  const claim = (value: V2SlotClaim) => {
    try {
      const off = slot.call(context.ui, value)
      if (typeof off === "function") offs.push(off)
    } catch {
      // A path this host does not publish: the other parts still work.
    }
  }
  claim({
    append: "sidebar.content",
    render: (input) => (
      <ErrorBoundary fallback={() => null}>
        <SidebarBlock
          host={host}
          source={source}
          rows={settings.config.sidebarRows}
          sessionID={input.sessionID}
          onShown={sidebars.onShown}
        />
      </ErrorBoundary>
    ),
  })
  claim({
    append: "session.composer.top",
    render: (input) => (
      <ErrorBoundary fallback={() => null}>
        <CompactLine
          host={host}
          source={source}
          session={() => input.sessionID || host.session()}
          sidebarShown={sidebars.shown}
        />
      </ErrorBoundary>
    ),
  })
  claim({
    append: "app",
    render: () => {
      try {
        context.keymap?.layer?.(() => ({
          mode: "global",
          commands: [
            {
              id: OPEN_COMMAND,
              title: "Todo list",
              description: COMMAND_DESCRIPTION,
              group: "Todo",
              palette: true,
              slash: { name: "todo", arguments: true },
              run: (input) => runTyped(shell, (input ?? "").trim()),
            },
          ],
        }))
      } catch {
        // No keymap here: the sidebar and the server's /todo still work.
      }
      return null
    },
  })

  return () => disposeAll(offs)
}
