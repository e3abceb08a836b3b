// What the model is told about the tool against what the tool table of docs/tool.md promises: every op, every
// field and every rule is stated in the tool description or the argument schema, once, and nothing more
// rides on every request than the goals allow.

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { OP_NAMES } from "../../src/core/list/types.ts"
import { LEAN_TOOL_DESCRIPTION, TOOL_DESCRIPTION, toolDescription } from "../../src/core/model/prompts.ts"
import { toolArgs } from "../../src/server/todo-tool.ts"

const ROOT = join(__dirname, "..", "..")
const README = readFileSync(join(ROOT, "docs", "tool.md"), "utf8")
const SKILL = readFileSync(join(ROOT, "skills", "todo-discipline", "SKILL.md"), "utf8")
const SCHEMA = JSON.stringify(z.toJSONSchema(z.object(toolArgs), { io: "input" }))

/** The rows of the README's tool table: op, the fields named in code, the effect. */
function toolTable(): { op: string; fields: string[]; effect: string }[] {
  const start = README.indexOf("| op | fields | effect |")
  expect(start).toBeGreaterThan(0)
  const rows: { op: string; fields: string[]; effect: string }[] = []
  for (const line of README.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break
    const [op = "", fields = "", effect = ""] = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim())
    rows.push({
      op: op.replace(/`/g, ""),
      fields: [...fields.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1]!.match(/[a-z]+/g) ?? []),
      effect,
    })
  }
  return rows
}

/** How the description says each op's effect, where the op's name does not say it all; the README row says it too. */
const EFFECTS: Record<string, string> = {
  init: "replaces the list",
  block: "waiting on something external",
  rm: "clear the list",
  append: "created if missing",
  rename: "place and status stay",
}

/** The rules under the README's tool table, by their bold title, and how the description says each. */
const RULES: Record<string, readonly string[]> = {
  "**Addressing.**": ["exact text", "exact name", "no ids"],
  "**One task in progress.**": ["One task is in progress", "start moves the running one back"],
  // Auto-start: once per call, after all of a batch's ops.
  "After each call, if nothing is in progress, the earliest pending task starts": [
    "After each call, if none is, the first pending task starts",
  ],
  "**Batches are atomic.**": ["ops:[{op,...}]", "in order", "all or nothing"],
}

describe("the tool's description and schema against the README's tool table", () => {
  it("the table lists exactly the ops the tool takes", () => {
    expect(toolTable().map((row) => row.op)).toEqual([...OP_NAMES])
  })

  it("names every op with its fields", () => {
    for (const { op, fields } of toolTable()) {
      const line = TOOL_DESCRIPTION.split("\n").find((l) => new RegExp(`^- (?:[a-z]+, )*${op}\\b`).test(l))
      expect(line, op).toBeDefined()
      for (const field of fields) {
        if (field === "optional" || field === "none") continue
        // `init`'s `items` shortcut is a leniency the core accepts, not a field the model needs to know.
        if (op === "init" && (field === "items" || field === "phase")) continue
        expect(line!.includes(field) || SCHEMA.includes(`"${field}"`), `${op}: ${field}`).toBe(true)
      }
    }
  })

  it("says each op's effect where the op's name does not, as the README row does", () => {
    const rows = new Map(toolTable().map((row) => [row.op, row.effect]))
    for (const [op, phrase] of Object.entries(EFFECTS)) {
      expect(rows.get(op), `README row of ${op}`).toContain(phrase)
      expect(TOOL_DESCRIPTION, op).toContain(phrase)
    }
  })

  it("states every rule under the table", () => {
    for (const [rule, phrases] of Object.entries(RULES)) {
      expect(README.replace(/\s+/g, " "), rule).toContain(rule)
      for (const phrase of phrases) expect(TOOL_DESCRIPTION, rule).toContain(phrase)
    }
  })

  it("answers what a blind trial had to guess: drop against rm, and done on a blocked task", () => {
    // drop keeps the task, shown dropped; rm deletes it (reducers.test.ts holds the behaviour).
    expect(TOOL_DESCRIPTION).toContain("drop: not needed (stays listed); rm: deletes.")
    // An explicit done completes a task whatever its status: blocked, dropped or open.
    expect(TOOL_DESCRIPTION).toContain("done works from any status.")
  })

  it("every field of the schema is named in the description, and the schema carries no prose", () => {
    const fields = Object.keys(toolArgs)
    for (const field of fields) expect(TOOL_DESCRIPTION, field).toMatch(new RegExp(`\\b${field}\\b`))
    expect(SCHEMA).not.toContain('"description"')
  })

  it("says each thing once: no op line repeats another's field list", () => {
    const lines = TOOL_DESCRIPTION.split("\n").filter((l) => l.startsWith("- "))
    expect(new Set(lines).size).toBe(lines.length)
    for (const op of OP_NAMES)
      expect(
        lines.filter((l) => new RegExp(`^- (?:[a-z]+, )*${op}\\b`).test(l)),
        op,
      ).toHaveLength(1)
  })

  it("the skill's own text (name and description) is at most 150 characters", () => {
    const name = /^name: (.*)$/m.exec(SKILL)?.[1] ?? ""
    const description = /^description: (.*)$/m.exec(SKILL)?.[1] ?? ""
    expect(name).toBe("todo-discipline")
    expect(name.length + description.length).toBeLessThanOrEqual(150)
  })
})

describe("the lean description (mode lean, or auto for a model that plans unaided)", () => {
  it("is the one the lean guidance gets; the full guidance gets the whole description", () => {
    expect(toolDescription("lean")).toBe(LEAN_TOOL_DESCRIPTION)
    expect(toolDescription("full")).toBe(TOOL_DESCRIPTION)
  })

  it("is a few lines, at most 320 characters", () => {
    expect(LEAN_TOOL_DESCRIPTION.split("\n").length).toBeLessThanOrEqual(4)
    expect(LEAN_TOOL_DESCRIPTION.length).toBeLessThanOrEqual(320)
  })

  it("still names every op and every field of the schema it rides with", () => {
    for (const op of OP_NAMES) expect(LEAN_TOOL_DESCRIPTION, op).toMatch(new RegExp(`\\b${op}\\b`))
    for (const field of Object.keys(toolArgs))
      expect(LEAN_TOOL_DESCRIPTION, field).toMatch(new RegExp(`\\b${field}\\b`))
  })

  it("keeps the rules a call cannot guess: exact text, no ids, atomic batches", () => {
    for (const phrase of ["exact text", "no ids", "all or nothing"])
      expect(LEAN_TOOL_DESCRIPTION, phrase).toContain(phrase)
  })
})
