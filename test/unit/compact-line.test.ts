import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { displayWidth } from "../../src/core/list/text-width.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { STATUSES } from "../../src/core/list/types.ts"
import { compactLine } from "../../src/core/view/compact-line.ts"
import { phase, task } from "../fixtures/lists.ts"

const list: TodoList = [
  phase("Design", task("Sketch the data model", "completed"), task("Write the parser", "in_progress")),
  phase("Build", task("Wire the sidebar"), task("Add the dialog", "blocked", "review"), task("Ship")),
]

describe("compactLine", () => {
  it("shows the task in progress and the counts", () => {
    expect(compactLine(list, 80)).toBe("▶ Write the parser · 1/5, 1 blocked")
  })

  it("falls back to the next pending task, then a blocked one, then all done", () => {
    expect(compactLine([phase("P", task("a", "completed"), task("b"))], 80)).toBe("○ b · 1/2")
    expect(compactLine([phase("P", task("a", "blocked"), task("b", "abandoned"))], 80)).toBe(
      "⊘ a · 0/1, 1 blocked · 1 dropped",
    )
    expect(compactLine([phase("P", task("a", "completed"), task("b", "abandoned"))], 80)).toBe(
      "✓ 1/1 done · 1 dropped",
    )
  })

  it("shows nothing for an empty list or a list of empty phases", () => {
    expect(compactLine([], 80)).toBeUndefined()
    expect(compactLine([phase("Empty")], 80)).toBeUndefined()
  })

  it("cuts the task with … and keeps the counts whole", () => {
    expect(compactLine(list, 24)).toBe("▶ Writ… · 1/5, 1 blocked")
    expect(displayWidth(compactLine(list, 30)!)).toBeLessThanOrEqual(30)
    expect(compactLine(list, 30)).toBe("▶ Write the… · 1/5, 1 blocked")
  })

  it("shows only the counts when the task would get fewer than 4 columns", () => {
    expect(compactLine(list, 20)).toBe("1/5, 1 blocked")
    expect(compactLine(list, 6)).toBe("1/5,…")
  })

  it("never wraps: a task text with line breaks stays one line, the breaks shown as escapes", () => {
    const text = compactLine([phase("P", task("first\nsecond\r\nthird", "in_progress"))], 80)!
    expect(text).not.toMatch(/[\r\n]/)
    expect(text).toBe("▶ first\\u000asecond\\u000d\\u000athird · 0/1")
  })

  it("counts wide characters as two columns", () => {
    const wide = compactLine([phase("P", task("漢字漢字漢字漢字漢字漢字", "in_progress"))], 16)!
    expect(displayWidth(wide)).toBeLessThanOrEqual(16)
    expect(wide).toBe("▶ 漢字漢… · 0/1")
  })

  it("at every width from 1 to 200: one line, no wider than the width, ending in the counts or …", () => {
    const statuses = fc.constantFrom(...STATUSES)
    const text = fc.string({ minLength: 1, maxLength: 120, unit: "grapheme" })
    const lists = fc.array(
      fc.record({ name: text, tasks: fc.array(fc.record({ text, status: statuses }), { maxLength: 5 }) }),
      { maxLength: 4 },
    )
    fc.assert(
      fc.property(lists, fc.integer({ min: 1, max: 200 }), (raw, width) => {
        const l: TodoList = raw.map((p) => phase(p.name, ...p.tasks.map((t) => task(t.text, t.status))))
        const out = compactLine(l, width)
        const total = l.reduce((n, p) => n + p.tasks.length, 0)
        const dropped = l.reduce((n, p) => n + p.tasks.filter((t) => t.status === "abandoned").length, 0)
        if (total === 0) {
          expect(out).toBeUndefined()
          return
        }
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
        expect(displayWidth(out!)).toBeLessThanOrEqual(width)
        // The count leaves the dropped tasks out and names them apart (words.ts's one rule).
        const apart = dropped > 0 ? ` · ${dropped} dropped` : ""
        expect(out).toMatch(new RegExp(`(\\d+/${total - dropped}( done)?(, \\d+ blocked)?${apart}|…)$`))
      }),
    )
  })

  it("shows nothing at no width", () => {
    expect(compactLine(list, 0)).toBeUndefined()
    expect(compactLine(list, Number.NaN)).toBeUndefined()
  })
})
