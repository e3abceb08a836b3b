// The TUI port (../host.ts) on OpenCode 1.18: the session, dialogs, theme, renderer, toast and kept values.
// The session comes from the route, the dialogs are the host's components in its dialog stack, and the values
// go to its key-value store (`api.kv`: kv.json in OpenCode's state folder, shared by the TUI and every
// plugin, so our keys carry the plugin's id).

import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { PLUGIN_ID } from "../../core/list/words.ts"
import type { Tone } from "../../core/view/sidebar.ts"
import type { DialogPort, KeptValues, TuiHost } from "../host.ts"
import { keptForThisRun } from "../shell.ts"
import { routeSession } from "./list-facts.ts"

export function toneColor(api: TuiPluginApi, tone: Tone) {
  const theme = api.theme.current
  switch (tone) {
    case "title":
    case "text":
      return theme.text
    case "in_progress":
      return theme.warning
    case "blocked":
    case "error":
      return theme.error
    case "completed":
      return theme.success
    default:
      return theme.textMuted
  }
}

function v1Dialogs(api: TuiPluginApi): DialogPort {
  const { dialog } = api.ui
  return {
    select(input) {
      dialog.replace(() => (
        <api.ui.DialogSelect
          title={input.title}
          placeholder={input.placeholder}
          options={[...input.options]}
          current={input.current}
          onSelect={(option) => input.onSelect(option.value)}
        />
      ))
    },
    prompt(input) {
      dialog.replace(() => (
        <api.ui.DialogPrompt
          title={input.title}
          placeholder={input.placeholder}
          value={input.value}
          onConfirm={input.onConfirm}
          onCancel={input.onCancel}
        />
      ))
    },
    confirm(input) {
      dialog.replace(() => (
        <api.ui.DialogConfirm
          title={input.title}
          message={input.message}
          onConfirm={input.onConfirm}
          onCancel={input.onCancel}
        />
      ))
    },
    alert(input) {
      dialog.replace(() => (
        <api.ui.DialogAlert title={input.title} message={input.message} onConfirm={input.onConfirm} />
      ))
    },
    clear: () => dialog.clear(),
  }
}

/** `api.kv`, read once the host has loaded it (before that a value reads as not kept). */
export function v1Kept(api: Pick<TuiPluginApi, "kv">): KeptValues {
  const kv = api.kv as Partial<TuiPluginApi["kv"]> | undefined
  if (typeof kv?.get !== "function" || typeof kv.set !== "function") return keptForThisRun()
  const own = (key: string) => `${PLUGIN_ID}.${key}`
  return {
    get(key) {
      try {
        return kv.ready ? kv.get?.(own(key)) : undefined
      } catch {
        return undefined
      }
    },
    set(key, value) {
      try {
        kv.set?.(own(key), value)
      } catch {
        // Not kept: the question comes again next time.
      }
    },
    keptFor: "install",
  }
}

export function v1Host(api: TuiPluginApi): TuiHost {
  return {
    session: () => routeSession(api),
    dialog: v1Dialogs(api),
    renderer: api.renderer,
    color: (tone) => toneColor(api, tone),
    toast: ({ variant, title, message, duration }) => api.ui.toast({ variant, title, message, duration }),
    kept: v1Kept(api),
  }
}
