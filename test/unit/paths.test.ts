// OpenCode's folders, resolved as OpenCode resolves them.
import { homedir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { configDir, stateDir } from "../../src/shared/paths.ts"

describe("configDir / stateDir", () => {
  it("follow their XDG variable when absolute, else the usual folder under HOME", () => {
    expect(configDir({ XDG_CONFIG_HOME: "/xdg", HOME: "/h" })).toBe(join("/xdg", "opencode"))
    expect(configDir({ XDG_CONFIG_HOME: "rel", HOME: "/h" })).toBe(join("/h", ".config", "opencode"))
    expect(stateDir({ XDG_STATE_HOME: "/xdg", HOME: "/h" })).toBe(join("/xdg", "opencode"))
    expect(stateDir({ HOME: "/h" })).toBe(join("/h", ".local", "state", "opencode"))
    expect(stateDir({})).toBe(join(homedir(), ".local", "state", "opencode"))
  })
})
