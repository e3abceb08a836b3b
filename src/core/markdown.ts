// TODO.md export and import: renders a list as a markdown checklist and parses it back,
// forgiving for hand edits, strict about anything it cannot read without guessing.

/*
 * Format (what renderMarkdown writes):
 *
 *   <!-- opencode-todo -->
 *   # Todo
 *
 *   ## <phase name>
 *   - [ ] <pending task>
 *   - [>] <task in progress>
 *   - [x] <completed task>
 *   - [-] <dropped task>
 *   - [!] <blocked task>
 *     - blocked: <reason>
 *
 * Task texts, phase names and reasons are written verbatim after a fixed prefix, so nothing in them
 * needs escaping. Task lines start in column 0 and the only indented line is the blocker line, so
 * no task text can be mistaken for a blocker. Round-trip holds for every list that passes checkList
 * and whose texts are trimmed (every op trims them): trailing whitespace is dropped on import.
 *
 * Parse rules (parseMarkdown), line by line after trimming trailing whitespace:
 * - Blank lines are ignored anywhere. A leading byte-order mark is ignored.
 * - The export marker is accepted (and optional) as the first non-blank line only.
 * - Task: `-`, `*` or `+`, spaces, `[m]`, whitespace, text. Marks: " " pending, ">" or "~" in progress,
 *   "x"/"X" completed, "-" dropped, "!" blocked.
 * - Blocker: an indented `- blocked: <reason>` line (any bullet, "blocked" in any case) under a
 *   blocked task; blank lines may sit between. One per task.
 * - Headings of depth 1 to 6 name phases. The first heading is instead the document title when it
 *   has a single `#`, no task comes before it and it is the only single-`#` heading in the file.
 * - Tasks before the first phase heading go into a phase named "Tasks" (DEFAULT_PHASE).
 * - Anything else is an error naming its 1-based line. Duplicates are errors naming both lines.
 *   The whole list then goes through checkList. Parse never normalizes (two in-progress tasks stay
 *   as written) and never returns a partial list.
 */

import { checkList, checkText } from "./list.ts"
import type { Result } from "./result.ts"
import type { Limits, Task, TaskStatus, TodoList } from "./types.ts"
import { DEFAULT_LIMITS } from "./types.ts"
import { DEFAULT_PHASE, neutralize, preview, STATUS_BOXES } from "./words.ts"

/** First line of every export; its presence lets a caller refuse to overwrite a foreign file. */
export const EXPORT_MARKER = "<!-- opencode-todo -->"
export const DOCUMENT_TITLE = "# Todo"
/** Marks accepted on import; a superset of the STATUS_BOXES marks so hand-written variants read too. */
const MARK_STATUS: Readonly<Record<string, TaskStatus>> = {
  " ": "pending",
  ">": "in_progress",
  "~": "in_progress",
  x: "completed",
  X: "completed",
  "-": "abandoned",
  "!": "blocked",
}

const BLOCKER_PREFIX = "  - blocked: "

// Extra text after the name is allowed so a future export may add a version or a hint.
const MARKER_RE = /^<!--\s*opencode-todo(?:[\s:].*)?-->$/s
const HEADING_RE = /^(#{1,6})(?:[ \t]+(.*))?$/s
// `(.)` with the u flag takes one code point, so a mark like an emoji reports as unknown, not as junk.
const TASK_RE = /^[-*+][ \t]+\[(.)\](.*)$/su
const BLOCKER_RE = /^\s+[-*+][ \t]+blocked:(.*)$/is
const LINE_BREAK = /\r\n|\r|\n/

export function renderMarkdown(list: TodoList): string {
  const out: string[] = [EXPORT_MARKER, DOCUMENT_TITLE]
  for (const phase of list) {
    // neutralize: a record stored before the character rule writes its escapes, so the file reads back.
    out.push("", `## ${neutralize(phase.name)}`)
    for (const task of phase.tasks) {
      out.push(`- ${STATUS_BOXES[task.status]} ${neutralize(task.text)}`)
      // A stray blocker on a non-blocked task would not parse back; valid lists never carry one.
      if (task.status === "blocked" && task.blocker !== undefined)
        out.push(`${BLOCKER_PREFIX}${neutralize(task.blocker)}`)
    }
  }
  return `${out.join("\n")}\n`
}

/** True when the first non-blank line is our export marker. */
export function isTodoExport(text: string): boolean {
  for (const line of splitLines(text)) {
    if (line === "") continue
    return MARKER_RE.test(line)
  }
  return false
}

interface DraftPhase {
  readonly name: string
  /** 1-based line of the heading, or of the first task for the implicit phase. */
  readonly line: number
  readonly implicit: boolean
  readonly tasks: Task[]
}

export interface ParseOptions {
  /**
   * Whether errors may quote the file's text. Off for a file that is not our export: it may be a `.env` or a
   * `.netrc` behind a link, and the error reaches the model; the line number and the problem still say enough.
   */
  readonly quote?: boolean
}

export function parseMarkdown(
  text: string,
  limits: Limits = DEFAULT_LIMITS,
  options: ParseOptions = {},
): Result<TodoList> {
  const quoting = options.quote !== false
  /** ` "text"` when quoting, else nothing. */
  const named = (value: string): string => (quoting ? ` "${preview(value)}"` : "")
  const got = (line: string): string => (quoting ? `; got "${preview(line)}"` : "")
  const lines = splitLines(text)
  const title = titleLine(lines)
  const phases: DraftPhase[] = []
  const phaseByName = new Map<string, DraftPhase>()
  const taskLine = new Map<string, number>()
  // The task a blocker line would attach to; a heading ends it.
  let last: { readonly phase: DraftPhase; readonly index: number; readonly line: number } | undefined
  const blockerSeen = new Set<string>()
  let sawContent = false

  const fail = (index: number, message: string): Result<TodoList> => ({
    ok: false,
    error: `Line ${index + 1}: ${message}`,
  })

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === "") continue
    const first = !sawContent
    sawContent = true
    if (first && MARKER_RE.test(line)) continue
    if (i === title) continue

    const heading = HEADING_RE.exec(line)
    if (heading) {
      const name = (heading[2] ?? "").trimStart()
      const bad = checkText(name, "Phase name", limits, quoting)
      if (bad) return fail(i, bad)
      const seen = phaseByName.get(name)
      if (seen) {
        return fail(
          i,
          seen.implicit
            ? `duplicate phase${named(name)}: the tasks above the first heading (from line ${seen.line}) already form a phase with that name.`
            : `duplicate phase${named(name)} (first on line ${seen.line}); phase names must be unique.`,
        )
      }
      if (phases.length >= limits.maxPhases) return fail(i, tooMany(limits.maxPhases, "phases", "maxPhases"))
      const phase: DraftPhase = { name, line: i + 1, implicit: false, tasks: [] }
      phases.push(phase)
      phaseByName.set(name, phase)
      last = undefined
      continue
    }

    const task = TASK_RE.exec(line)
    if (task) {
      const mark = task[1]!
      const rest = task[2]!
      const status = MARK_STATUS[mark]
      if (status === undefined) {
        return fail(
          i,
          `unknown status mark "[${preview(mark)}]"${quoting ? ` in "${preview(line)}"` : ""}; use [ ] pending, [>] in progress, [x] done, [-] dropped or [!] blocked.`,
        )
      }
      if (rest.trim() === "") return fail(i, `task text is empty${got(line)}`)
      if (!/^\s/.test(rest)) return fail(i, expected(got(line)))
      const taskText = rest.trimStart()
      const bad = checkText(taskText, "Task", limits, quoting)
      if (bad) return fail(i, bad)
      const seenLine = taskLine.get(taskText)
      if (seenLine !== undefined) {
        return fail(
          i,
          `duplicate task${named(taskText)} (first on line ${seenLine}); task texts must be unique across the list.`,
        )
      }
      // Stop here rather than parse a huge file to the end only to refuse it.
      if (taskLine.size >= limits.maxTasks) return fail(i, tooMany(limits.maxTasks, "tasks", "maxTasks"))
      taskLine.set(taskText, i + 1)
      let phase = phases[phases.length - 1]
      if (phase === undefined) {
        phase = { name: DEFAULT_PHASE, line: i + 1, implicit: true, tasks: [] }
        phases.push(phase)
        phaseByName.set(DEFAULT_PHASE, phase)
      }
      phase.tasks.push({ text: taskText, status })
      last = { phase, index: phase.tasks.length - 1, line: i + 1 }
      continue
    }

    const blocker = BLOCKER_RE.exec(line)
    if (blocker) {
      if (last === undefined)
        return fail(i, `a blocker line must follow a blocked task "- [!] …"${got(line)}`)
      const owner = last.phase.tasks[last.index]!
      if (owner.status !== "blocked") {
        return fail(
          i,
          `a blocker line belongs under a blocked task "- [!] …", but task${named(owner.text)} (line ${last.line}) is not marked blocked.`,
        )
      }
      if (blockerSeen.has(owner.text))
        return fail(i, `task${named(owner.text)} (line ${last.line}) already has a blocker line.`)
      const reason = blocker[1]!.trim()
      const bad = checkText(reason, "Blocker reason", limits, quoting)
      if (bad) return fail(i, bad)
      blockerSeen.add(owner.text)
      last.phase.tasks[last.index] = { text: owner.text, status: owner.status, blocker: reason }
      continue
    }

    return fail(i, expected(got(line)))
  }

  const list: TodoList = phases.map((phase) => ({ name: phase.name, tasks: phase.tasks }))
  const bad = checkList(list, limits)
  if (bad) return { ok: false, error: bad }
  return { ok: true, value: list }
}

function expected(got: string): string {
  return `expected "- [ ] task", a "## Phase" heading or a blank line${got}`
}

function tooMany(limit: number, what: string, key: string): string {
  return `the file has more than ${limit} ${what}, the limit; split the plan or raise ${key}.`
}

function splitLines(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text
  return body.split(LINE_BREAK).map((line) => line.trimEnd())
}

/** Index of the line that is the document title (see the header rule), or -1. */
function titleLine(lines: readonly string[]): number {
  let first = -1
  let taskBefore = false
  let singles = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const heading = HEADING_RE.exec(line)
    if (heading) {
      if (first === -1) first = i
      if (heading[1] === "#") singles++
    } else if (first === -1 && TASK_RE.test(line)) taskBefore = true
  }
  if (first === -1 || taskBefore || singles !== 1) return -1
  return HEADING_RE.exec(lines[first]!)![1] === "#" ? first : -1
}
