// The list a part carries: a completed todo tool part's result, or a /todo command's text part.
import { describe, expect, it } from "vitest"
import { COMMAND_PART_KEY, latestToolList, toolPartList } from "../../src/core/list/carried.ts"

describe("the list a part carries", () => {
  it("takes the list of the newest completed todo tool part", () => {
    const done = (list: unknown) => ({
      type: "tool",
      tool: "todo",
      state: { status: "completed", metadata: { ok: true, list } },
    })
    const parts = [
      done(["first"]),
      { type: "text", text: "hi" },
      done(["second"]),
      { type: "tool", tool: "todo", state: { status: "running", input: {} } },
      { type: "tool", tool: "bash", state: { status: "completed", metadata: { list: ["not ours"] } } },
      { type: "tool", tool: "todo", state: { status: "error", error: "x" } },
    ]
    expect(latestToolList(parts)).toEqual(["second"])
    const command = { type: "text", text: "…", metadata: { [COMMAND_PART_KEY]: { list: ["from command"] } } }
    expect(latestToolList([...parts, command])).toEqual(["from command"])
    expect(latestToolList([command, ...parts])).toEqual(["second"])
    expect(toolPartList({ type: "text", text: "plain" })).toBeUndefined()
    expect(toolPartList({ type: "text", text: "x", metadata: { other: { list: [] } } })).toBeUndefined()
    expect(latestToolList([])).toBeUndefined()
    expect(toolPartList(null)).toBeUndefined()
    expect(toolPartList({ type: "tool", tool: "todo", state: { status: "completed", metadata: {} } })).toBe(
      undefined,
    )
  })
})
