// Every model-facing text against its budget in test/fixtures/text-budgets.ts.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { expect, test } from "vitest"
import { PASSAGES } from "../../src/core/model/host-prompt.ts"
import {
  commandReplyText,
  compactionContextText,
  LEAN_TOOL_DESCRIPTION,
  MARKER,
  noticesText,
  preludeText,
  reminderText,
  STALE_FAILED_STUB,
  STALE_RESULT_STUB,
  STALE_STUB,
  SUBAGENT_REFUSAL,
  TOOL_DESCRIPTION,
} from "../../src/core/model/prompts.ts"
import { OPEN_SAMPLE } from "../fixtures/lists.ts"
import { type BudgetedText, TEXT_BUDGETS } from "../fixtures/text-budgets.ts"

const LIST = OPEN_SAMPLE

const skill = readFileSync(join(__dirname, "..", "..", "skills", "todo-discipline", "SKILL.md"), "utf8")

/** Each budgeted text as the model reads it. */
function texts(): Record<BudgetedText, string> {
  const pointers = Object.fromEntries(
    PASSAGES.map((p) => {
      // The pointer of a numbered passage repeats the host's number: render it with one digit.
      const match = Object.assign(["", "5", "## 5. Develop a Detailed Plan"], { index: 0, input: "" })
      return [p.name, p.pointer(match as RegExpExecArray)]
    }),
  )
  return {
    toolDescription: TOOL_DESCRIPTION,
    leanToolDescription: LEAN_TOOL_DESCRIPTION,
    skillDescription: /^description: (.*)$/m.exec(skill)?.[1] ?? "",
    subagentRefusal: SUBAGENT_REFUSAL,
    marker: MARKER,
    preludePreferred: preludeText("preferred") ?? "",
    preludeAlways: preludeText("always") ?? "",
    reminder: reminderText(LIST),
    compactionContext: compactionContextText(LIST),
    noticeResumed: noticesText({ resumed: true }, LIST) ?? "",
    noticeCompacted: noticesText({ compacted: true }, LIST) ?? "",
    noticeCarried: noticesText({ carried: true }, LIST) ?? "",
    noticeEdits:
      noticesText({ edits: { lines: ['done "Write parser"'], removed: ["Old"], omitted: 0 } }, LIST) ?? "",
    noticeNudge: noticesText({ nudge: 12 }, LIST) ?? "",
    commandChanged: commandReplyText({ lines: ['removed "Old"'], removed: ["Old"], list: LIST }),
    commandViewed: commandReplyText({ shown: "the todo list", output: "x" }),
    commandFailed: commandReplyText({ error: "x" }),
    staleNotice: STALE_STUB,
    staleResult: STALE_RESULT_STUB,
    staleFailed: STALE_FAILED_STUB,
    ...pointers,
  } as Record<BudgetedText, string>
}

test("every model-facing text is within its budget", () => {
  const rendered = texts()
  const over = Object.entries(TEXT_BUDGETS)
    .filter(([name, budget]) => (rendered[name as BudgetedText] ?? "").length > budget)
    .map(([name, budget]) => `${name}: ${rendered[name as BudgetedText].length} > ${budget}`)
  expect(over).toEqual([])
})

test("every budget belongs to a text that exists, and every steering text has a budget", () => {
  const rendered = texts()
  for (const [name, text] of Object.entries(rendered)) expect(text.length, name).toBeGreaterThan(0)
  for (const passage of PASSAGES) expect(Object.keys(TEXT_BUDGETS)).toContain(passage.name)
})
