// The /todo parser never cuts the text after the separator: the first lone `--` ends the name, and whatever
// follows (more separators, quotes, dashes that look like one) is the reason or the new text, kept as typed.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseCommand } from "../../src/core/list/command.ts"
import type { TodoList } from "../../src/core/list/types.ts"

const list: TodoList = [
  {
    name: "Ship",
    tasks: [
      { text: "Tag release", status: "pending" },
      { text: "Wait for CI", status: "blocked", blocker: "red" },
    ],
  },
]

// What a user types after the separator: words, more separators, quotes and look-alikes of both.
const FRAGMENTS = [
  "waiting for ops",
  "back Monday",
  " -- ",
  "--",
  "-- ",
  " --",
  "---",
  "--force",
  "x--y",
  "- -",
  " — ",
  " – ",
  "−−",
  '"',
  "'",
  '"ops"',
  "'ops'",
  "don't",
  "“quoted”",
  "«x»",
  "`--`",
  "  ",
  "\t",
  "\n",
  "a",
]

const typed = fc.oneof(
  fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
  fc.string({ maxLength: 40 }),
)

/** The text as it should be kept: one line, trimmed, and quotes around the whole of it taken as grouping. */
function expected(text: string): string {
  const line = text.replace(/\s*[\r\n]+\s*/g, " ").trim()
  const quoted = /^"([^"]*)"$/.exec(line) ?? /^'([^']*)'$/.exec(line)
  return quoted ? quoted[1]!.trim() : line
}

const NAMES: Record<string, string> = {
  block: "Tag release",
  drop: "Tag release",
  unblock: "Wait for CI",
  rename: "Tag release",
}

describe("the text after ` -- `", () => {
  it("is kept whole for block, drop, unblock and rename, whatever it holds", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(NAMES)), fc.boolean(), typed, (verb, quoteName, text) => {
        const name = NAMES[verb]!
        const shownName = quoteName ? `"${name}"` : name
        const parsed = parseCommand(`${verb} ${shownName} -- ${text}`, list)
        const want = expected(text)
        if (verb === "rename") {
          if (want === "") expect(parsed.ok).toBe(false)
          else expect(parsed).toMatchObject({ ok: true, value: { ops: [{ op: "rename", to: want }] } })
          return
        }
        expect(parsed.ok).toBe(true)
        const op = parsed.ok && parsed.value.kind === "ops" ? parsed.value.ops[0] : undefined
        expect(op).toMatchObject({ op: verb, target: { kind: "task", text: name } })
        expect((op as { reason?: string }).reason ?? "").toBe(want)
      }),
      { numRuns: 500 },
    )
  })
})
