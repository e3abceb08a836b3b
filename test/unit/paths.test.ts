// OpenCode's folders, resolved as OpenCode resolves them.
import { homedir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { configDir, dataDir, stateDir, todoDir } from "../../src/shared/paths.ts"

describe("configDir / stateDir", () => {
  it("follow their XDG variable when set, else the usual folder under HOME", () => {
    expect(configDir({ XDG_CONFIG_HOME: "/xdg", HOME: "/h" })).toBe(join("/xdg", "opencode"))
    expect(configDir({ XDG_CONFIG_HOME: "", HOME: "/h" })).toBe(join("/h", ".config", "opencode"))
    expect(stateDir({ XDG_STATE_HOME: "/xdg", HOME: "/h" })).toBe(join("/xdg", "opencode"))
    expect(stateDir({ HOME: "/h" })).toBe(join("/h", ".local", "state", "opencode"))
    expect(stateDir({})).toBe(join(homedir(), ".local", "state", "opencode"))
  })
})

describe("relative XDG values", () => {
  // `opencode debug paths` (1.18.33) with XDG_DATA_HOME=rel/data prints "data rel/data/opencode": the host
  // uses a relative value as given, so the records and the global todo.json must sit there too.
  it("are used as the host uses them, relative to the process's folder", () => {
    const env = {
      XDG_DATA_HOME: "rel/data",
      XDG_CONFIG_HOME: "rel/config",
      XDG_STATE_HOME: "rel/state",
      HOME: "/h",
    }
    expect(dataDir(env)).toBe(join("rel", "data", "opencode"))
    expect(configDir(env)).toBe(join("rel", "config", "opencode"))
    expect(stateDir(env)).toBe(join("rel", "state", "opencode"))
    expect(todoDir(env)).toBe(join("rel", "data", "opencode", "plugin", "todo"))
  })
})
