// A Markdown list that replaces the session's list (import, $EDITOR edit) ends in the normal form, and
// the notes say what was read how and what the normal form changed, by line.
import { describe, expect, it } from "vitest"
import { importMarkdown } from "../src/core/import.ts"
import { phase, task } from "./fixtures/lists.ts"

const md = (...lines: string[]) => lines.join("\n")

describe("importMarkdown", () => {
  it("keeps the first of several in-progress tasks and sends the rest back to pending, saying so", () => {
    expect(importMarkdown(md("## P", "- [>] a", "- [ ] b", "- [>] c", "- [/] d"))).toStrictEqual({
      ok: true,
      value: {
        list: [phase("P", task("a", "in_progress"), task("b"), task("c"), task("d"))],
        notes: [
          "line 5: [/] read as in progress",
          'lines 4, 5: back to pending ("c", "d"); only "a" (line 2) stays in progress',
        ],
      },
    })
  })

  it("starts the earliest pending task when none is in progress, saying so", () => {
    expect(importMarkdown(md("# Work", "- [x] a", "- [!] b", "- [ ] c", "- [ ] d"))).toStrictEqual({
      ok: true,
      value: {
        list: [
          phase("Work", task("a", "completed"), task("b", "blocked"), task("c", "in_progress"), task("d")),
        ],
        notes: [
          'line 1: tasks under the title "Work" form phase "Work"',
          'line 4: started "c"; no task was in progress',
        ],
      },
    })
  })

  it("leaves a list with only closed or blocked tasks as it is, and says nothing", () => {
    expect(importMarkdown(md("## P", "- [x] a", "- [!] b"))).toStrictEqual({
      ok: true,
      value: { list: [phase("P", task("a", "completed"), task("b", "blocked"))], notes: [] },
    })
  })

  it("imports the empty file and the bare export as the empty list", () => {
    expect(importMarkdown("")).toStrictEqual({ ok: true, value: { list: [], notes: [] } })
    expect(importMarkdown("<!-- opencode-todo -->\n# Todo\n")).toStrictEqual({
      ok: true,
      value: { list: [], notes: [] },
    })
  })

  it("passes a parse error through unchanged", () => {
    expect(importMarkdown("oops")).toMatchObject({ ok: false, error: expect.stringMatching(/^Line 1: /) })
  })
})
