// How the user reaches the list from the keyboard: the `/todo` TUI command and an Enter intercept. The
// intercept takes a `/todo` or `/todo <verb> …` prompt line before the host sends it (typed-verbs.ts runs it
// at no model cost). Which `/todo` the slash name reaches, with or without the server plugin: docs/design.md.

import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { COMMAND_DESCRIPTION, todoArguments } from "../../core/list/command.ts"
import { PLUGIN_ID } from "../../core/list/words.ts"
import { SERVER_MISSING } from "../../core/session/toasts.ts"
import { openDialog } from "../dialog.ts"
import type { Shell } from "../list-source.ts"
import { runTyped } from "../typed-verbs.ts"

const OPEN_COMMAND = `${PLUGIN_ID}.open`
const TITLE = "Todo list"
const DESCRIPTION = "Show and edit the session's todo list (no model turn)"
/** How long the TUI waits for its bootstrap (config from the server) before deciding without it. */
const READY_WAIT_MS = 30_000
const READY_POLL_MS = 250

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

/** Whether the server plugin's `/todo` command is in the config the TUI loaded (ours, by its description). */
function serverCommandLoaded(api: TuiPluginApi): boolean {
  try {
    const command = (api.state.config as { command?: Record<string, { description?: unknown }> }).command
      ?.todo
    return command?.description === COMMAND_DESCRIPTION
  } catch {
    return false
  }
}

/** Runs `decide` once the TUI has its config from the server, or after READY_WAIT_MS without it. */
function whenReady(api: TuiPluginApi, offs: (() => void)[], decide: () => void): void {
  const started = Date.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  const poll = () => {
    timer = undefined
    let ready = false
    try {
      ready = api.state.ready
    } catch {
      ready = true
    }
    if (ready || Date.now() - started > READY_WAIT_MS) return decide()
    timer = setTimeout(poll, READY_POLL_MS)
  }
  offs.push(() => {
    if (timer) clearTimeout(timer)
  })
  poll()
}

export function registerCommands(api: TuiPluginApi, shell: Shell, offs: (() => void)[]): void {
  const open = () => openDialog(shell)
  const keymap = api.keymap as unknown as Keymap | undefined
  let serverLoaded = false

  function register(slash: boolean): void {
    const commands = [
      {
        namespace: "palette",
        name: OPEN_COMMAND,
        title: TITLE,
        desc: DESCRIPTION,
        category: "Todo",
        ...(slash ? { slashName: "todo" } : {}),
        run: open,
      },
    ]
    if (typeof keymap?.registerLayer === "function") {
      try {
        offs.push(keymap.registerLayer({ commands }))
        return
      } catch {
        // Fall back to the older command API.
      }
    }
    if (!api.command) return
    try {
      offs.push(
        api.command.register(() => [
          {
            title: TITLE,
            value: OPEN_COMMAND,
            description: DESCRIPTION,
            category: "Todo",
            ...(slash ? { slash: { name: "todo" } } : {}),
            onSelect: open,
          },
        ]),
      )
    } catch {
      // No command API at all: the sidebar and the intercept still work.
    }
  }

  whenReady(api, offs, () => {
    serverLoaded = serverCommandLoaded(api)
    register(!serverLoaded)
    if (!serverLoaded) shell.toast(SERVER_MISSING.variant, SERVER_MISSING.message, SERVER_MISSING.title)
  })

  // Enter on a `/todo` line: the autocomplete would otherwise pick the server's row, and a line with
  // arguments would go to the server command, which costs a model turn.
  if (typeof keymap?.intercept !== "function") return
  try {
    offs.push(
      keymap.intercept("key", (ctx) => {
        try {
          const event = ctx?.event
          if (event?.name !== "return" || event.ctrl || event.meta || event.shift) return
          if (api.ui.dialog.open) return
          const editor = api.renderer.currentFocusedEditor
          const args = editor ? todoArguments(editor.plainText) : undefined
          if (args === undefined) return
          // A TUI attached to a server whose storage it cannot reach leaves verbs to the server command.
          if (args !== "" && serverLoaded && shell.source.editProblem() !== undefined) return
          event.preventDefault?.()
          event.stopPropagation?.()
          editor?.setText("")
          runTyped(shell, args)
        } catch {
          // Leave the key to the host.
        }
      }),
    )
  } catch {
    // No intercept: /todo is still in the autocomplete and the command palette.
  }
}
