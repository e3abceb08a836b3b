// The blind-trial entry (scripts/try-tool.mjs): one call on a stored list answers with the model's text,
// and the list it stores reads back for the next call.

import { describe, expect, it } from "vitest"
import {
  LEAN_TOOL_DESCRIPTION,
  TOOL_DESCRIPTION,
  toolParameters,
  tryCall,
} from "../../src/server/tool-trial.ts"

describe("tool trial", () => {
  it("runs one call on no list, then the next on the list it stored", () => {
    const first = tryCall(null, { op: "init", list: [{ phase: "A", items: ["x", "y"] }] })
    expect(first.ok).toBe(true)
    expect(first.text).toBe('"A" (0/2)\n  [>] "x"\n  [ ] "y"\nNext: "y". 0/2 done.\nMarks: [>] in progress.')
    const stored: unknown = JSON.parse(JSON.stringify(first.list))
    const second = tryCall(stored, { op: "rename", task: "y", to: "z" })
    expect(second.text).toBe('Renamed "y" to "z".\nNow: "x". Next: "z". 0/2 done.')
  })

  it("a failed call says so and leaves the list as it was", () => {
    const stored = tryCall(null, { items: ["x"] }).list
    const failed = tryCall(stored, { op: "done", task: "nope" })
    expect(failed.ok).toBe(false)
    expect(failed.text).toMatch(/^Error: No task "nope"\..* Nothing was changed\.$/)
    expect(failed.list).toEqual(stored)
  })

  it("gives the description and the parameters the host sends", () => {
    expect(TOOL_DESCRIPTION).toContain("rename")
    expect(JSON.parse(toolParameters()).properties.to).toEqual({ type: "string" })
    // OpenCode 1.18 sends it without the "$schema" line (hooks.ts tool.definition).
    expect(JSON.parse(toolParameters())).not.toHaveProperty("$schema")
    expect(LEAN_TOOL_DESCRIPTION.split("\n").length).toBeLessThanOrEqual(4)
  })
})
