// The vocabulary every message shares: one word, box and glyph per status, one progress text.
import { describe, expect, it } from "vitest"
import { parseMarkdown, renderMarkdown } from "../../src/core/list/markdown.ts"
import { appendPhase, hasActionableTask, hasOpenTask } from "../../src/core/list/queries.ts"
import { STATUSES, type TaskStatus, type TodoList } from "../../src/core/list/types.ts"
import {
  DEFAULT_PHASE,
  foldLine,
  openText,
  PLUGIN_ID,
  preview,
  progressText,
  STATUS_BOXES,
  STATUS_GLYPHS,
  STATUS_WORDS,
  tooManyOpsText,
} from "../../src/core/list/words.ts"
import { formatTask } from "../../src/core/model/format.ts"

const only = (status: TaskStatus): TodoList => [{ name: "P", tasks: [{ text: "a", status }] }]

describe("status tables", () => {
  it("give every status a distinct word, box and glyph", () => {
    for (const table of [STATUS_WORDS, STATUS_BOXES, STATUS_GLYPHS]) {
      expect(Object.keys(table).sort()).toEqual([...STATUSES].sort())
      expect(new Set(Object.values(table)).size).toBe(STATUSES.length)
    }
  })

  it("print the same box in the model's list and in TODO.md", () => {
    for (const status of STATUSES) {
      expect(formatTask({ text: "a", status })).toBe(`${STATUS_BOXES[status]} "a"`)
      expect(renderMarkdown(only(status))).toContain(`- ${STATUS_BOXES[status]} a\n`)
      const back = parseMarkdown(`- ${STATUS_BOXES[status]} a\n`)
      expect(back.ok && back.value[0]!.tasks[0]!.status).toBe(status)
    }
  })
})

describe("progress text", () => {
  it("counts done tasks out of those not dropped, and names blocked and dropped ones apart", () => {
    expect(progressText({ completed: 3, abandoned: 0, total: 12, blocked: 1 })).toBe("3/12 done, 1 blocked")
    expect(progressText({ completed: 0, abandoned: 0, total: 2, blocked: 0 })).toBe("0/2 done")
    expect(progressText({ completed: 4, abandoned: 1, total: 5, blocked: 0 })).toBe("4/4 done · 1 dropped")
    expect(progressText({ completed: 2, abandoned: 2, total: 6, blocked: 1 })).toBe(
      "2/4 done, 1 blocked · 2 dropped",
    )
  })

  it("counts open work as a completion reminder does: pending and in progress, not blocked", () => {
    expect(openText({ completed: 0, abandoned: 0, total: 3, blocked: 1, pending: 1, inProgress: 1 })).toBe(
      "2 tasks open",
    )
    expect(openText({ completed: 0, abandoned: 0, total: 1, blocked: 0, pending: 1, inProgress: 0 })).toBe(
      "1 task open",
    )
  })
})

describe("text helpers", () => {
  it("preview keeps one line and cuts long text with an ellipsis", () => {
    expect(preview("a\nb")).toBe("a b")
    expect(preview("x".repeat(61))).toBe(`${"x".repeat(59)}…`)
    expect(preview("x".repeat(60))).toBe("x".repeat(60))
  })

  it("foldLine folds a paragraph onto one trimmed line", () => {
    expect(foldLine("  waiting\n  on the\r\n\ntoken  ")).toBe("waiting on the token")
    expect(foldLine("\n \n")).toBe("")
  })

  it("the ops limit says how to proceed", () => {
    expect(tooManyOpsText(51, 50)).toBe("The call has 51 ops; the limit is 50. Split it into several calls.")
  })

  it("names the plugin and the default phase once", () => {
    expect(PLUGIN_ID).toBe("opencode-todo")
    expect(DEFAULT_PHASE).toBe("Tasks")
  })
})

describe("the two meanings of open", () => {
  it("an open task includes a blocked one; an actionable task does not", () => {
    expect(hasOpenTask(only("blocked"))).toBe(true)
    expect(hasActionableTask(only("blocked"))).toBe(false)
    for (const status of ["pending", "in_progress"] as const) {
      expect(hasOpenTask(only(status))).toBe(true)
      expect(hasActionableTask(only(status))).toBe(true)
    }
    for (const status of ["completed", "abandoned"] as const) {
      expect(hasOpenTask(only(status))).toBe(false)
      expect(hasActionableTask(only(status))).toBe(false)
    }
  })
})

describe("the append phase", () => {
  it("is the phase in progress, else the last, else the default phase", () => {
    const list: TodoList = [
      { name: "A", tasks: [{ text: "a", status: "in_progress" }] },
      { name: "B", tasks: [{ text: "b", status: "pending" }] },
    ]
    expect(appendPhase(list)).toBe("A")
    expect(appendPhase([list[1]!])).toBe("B")
    expect(appendPhase([])).toBe(DEFAULT_PHASE)
  })
})
