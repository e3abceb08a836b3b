// Where OpenCode keeps its folders on this machine, and the plugin's own folder inside its data folder.
// Resolved the way OpenCode resolves them: XDG base directories, else the usual folders under HOME; a
// relative XDG value stays relative, as the host keeps it (docs/design.md).

import { homedir } from "node:os"
import { join } from "node:path"

type Env = Readonly<Record<string, string | undefined>>

const XDG = {
  data: { variable: "XDG_DATA_HOME", fallback: [".local", "share"] },
  config: { variable: "XDG_CONFIG_HOME", fallback: [".config"] },
  state: { variable: "XDG_STATE_HOME", fallback: [".local", "state"] },
} as const

function opencodeDir(kind: keyof typeof XDG, env: Env): string {
  const { variable, fallback } = XDG[kind]
  const xdg = env[variable]
  // The XDG spec calls a relative value invalid, but the host uses it: its folders are where the records go.
  if (xdg) return join(xdg, "opencode")
  return join(env.HOME || homedir(), ...fallback, "opencode")
}

/** OpenCode's data folder: $XDG_DATA_HOME/opencode, else ~/.local/share/opencode. */
export function dataDir(env: Env = process.env): string {
  return opencodeDir("data", env)
}

/** OpenCode's global config folder: $XDG_CONFIG_HOME/opencode, else ~/.config/opencode. */
export function configDir(env: Env = process.env): string {
  return opencodeDir("config", env)
}

/** OpenCode's state folder: $XDG_STATE_HOME/opencode, else ~/.local/state/opencode. */
export function stateDir(env: Env = process.env): string {
  return opencodeDir("state", env)
}

/** The plugin's folder of session records, inside OpenCode's data folder. */
export function todoDir(env: Env = process.env): string {
  return join(dataDir(env), "plugin", "todo")
}
