// How the user reaches the dialog: the `/todo` TUI command (slash and palette), a hidden command the
// server uses to ask for a sidebar refresh, and an Enter intercept for a bare `/todo` line.

import { REFRESH_COMMAND } from "./core/tui-protocol.ts"
import { PLUGIN_ID } from "./core/words.ts"
import { openDialog } from "./tui-dialog.tsx"
import type { Shell } from "./tui-list.ts"

const OPEN_COMMAND = `${PLUGIN_ID}.open`
const TITLE = "Todo list"
const DESCRIPTION = "Show and edit the session's phased todo list"

// `@opentui/keymap` types are not installed, so the keymap is used through this narrow shape.
type KeyCtx = {
  event?: {
    name?: string
    ctrl?: boolean
    meta?: boolean
    shift?: boolean
    preventDefault?: () => void
    stopPropagation?: () => void
  }
}
type Keymap = {
  registerLayer?: (layer: unknown) => () => void
  intercept?: (kind: string, fn: (ctx: KeyCtx) => void) => () => void
}

export function registerCommands(shell: Shell, offs: (() => void)[]): void {
  const { api } = shell
  const open = () => openDialog(shell)
  const keymap = api.keymap as unknown as Keymap | undefined
  const commands = [
    {
      namespace: "palette",
      name: OPEN_COMMAND,
      title: TITLE,
      desc: DESCRIPTION,
      category: "Todo",
      slashName: "todo",
      run: open,
    },
    {
      namespace: "palette",
      name: REFRESH_COMMAND,
      title: "Todo: refresh the sidebar",
      desc: "Reread the todo list",
      category: "Todo",
      hidden: true,
      run: () => shell.source.refreshAll(),
    },
  ]
  let registered = false
  if (typeof keymap?.registerLayer === "function") {
    try {
      offs.push(keymap.registerLayer({ commands }))
      registered = true
    } catch {
      registered = false
    }
  }
  if (!registered && api.command) {
    try {
      offs.push(
        api.command.register(() => [
          {
            title: TITLE,
            value: OPEN_COMMAND,
            description: DESCRIPTION,
            category: "Todo",
            slash: { name: "todo" },
            onSelect: open,
          },
        ]),
      )
    } catch {
      // No command API at all: the sidebar still works.
    }
  }

  // The server also defines a `todo` command (for `/todo <verb>`), and the prompt's autocomplete puts
  // it first, so Enter on a bare `/todo` would pick the server's. Catch exactly that line and open
  // the dialog; anything with arguments still goes to the server command.
  if (typeof keymap?.intercept !== "function") return
  try {
    offs.push(
      keymap.intercept("key", (ctx) => {
        try {
          const event = ctx?.event
          if (event?.name !== "return" || event.ctrl || event.meta || event.shift) return
          if (api.ui.dialog.open) return
          const editor = api.renderer.currentFocusedEditor
          if (editor?.plainText.trim() !== "/todo") return
          event.preventDefault?.()
          event.stopPropagation?.()
          editor.setText("")
          open()
        } catch {
          // Leave the key to the host.
        }
      }),
    )
  } catch {
    // No intercept: /todo is still in the autocomplete and the command palette.
  }
}
