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
 *     - dropped: <reason>          (when it was dropped with one)
 *   - [!] <blocked task>
 *     - blocked: <reason>
 *
 * Task texts, phase names and reasons are written verbatim after a fixed prefix, so nothing in them
 * needs escaping. Task lines start in column 0 and the only indented line is the blocker line, so
 * no task text can be mistaken for a blocker. The one exception: a text that ends in what reads as a
 * blocker comment gets an empty `<!-- blocker: -->` after it, which import takes off again. Round-trip
 * holds for every list that passes checkList and whose texts are trimmed (every op trims them):
 * trailing whitespace is dropped on import.
 *
 * Parse rules (parseMarkdown), line by line after trimming trailing whitespace:
 * - Blank lines are ignored anywhere. A leading byte-order mark is ignored.
 * - The export marker is accepted (and optional) as the first non-blank line only.
 * - Task: `-`, `*` or `+`, spaces, `[m]`, whitespace, text. Marks: " " pending, ">" or "/" in progress
 *   ("/" as Obsidian Tasks writes it), "x"/"X" completed, "-" or "~" dropped ("~" as the older format
 *   wrote it), "!" blocked.
 * - Reason: an indented `- blocked: <reason>` line (any bullet, "blocked" in any case) under a
 *   blocked task, or `- dropped: <reason>` under a dropped one; blank lines may sit between. One per task. The older format's way is read too: a
 *   task line ending in `<!-- blocker: <reason> -->` ("blocker" in any case; the last such comment
 *   counts) has the comment cut from its text; a reason makes an open task blocked with that reason
 *   and is left out on a closed task; an empty reason changes nothing.
 * - Headings of depth 1 to 6 name phases. The first heading is instead the document title when it
 *   has a single `#`, no task comes before it and it is the only single-`#` heading in the file.
 * - Tasks before the first phase heading go into a phase named "Tasks" (DEFAULT_PHASE); when the
 *   title is the file's only heading, they go into a phase named after the title instead.
 * - Every rule above that reads a form our export never writes (`[/]`, `[~]`, a blocker comment,
 *   the title as a phase) adds a note naming its lines, so the reply can say what was read how.
 * - Anything else is an error naming its 1-based line. Duplicates are errors naming both lines.
 *   The first task past maxTasks and the first phase past maxPhases are errors too, so a huge file
 *   is refused at that line instead of being read to its end. With `quote: false` (a file that is
 *   not our export) no error quotes the file's text.
 *   The whole list then goes through checkList. Parse never normalizes (two in-progress tasks stay
 *   as written; import.ts decides the normal form) and never returns a partial list.
 */

import { checkList, checkText } from "./queries.ts"
import type { Result } from "./result.ts"
import type { Limits, Task, TaskStatus, TodoList } from "./types.ts"
import { CLOSED, DEFAULT_LIMITS } from "./types.ts"
import { DEFAULT_PHASE, neutralize, quotePreview, STATUS_BOXES } from "./words.ts"

/** First line of every export; its presence lets a caller refuse to overwrite a foreign file. */
export const EXPORT_MARKER = "<!-- opencode-todo -->"
export const DOCUMENT_TITLE = "# Todo"
/** Marks accepted on import; a superset of the STATUS_BOXES marks so hand-written variants read too. */
const MARK_STATUS: Readonly<Record<string, TaskStatus>> = {
  " ": "pending",
  ">": "in_progress",
  "/": "in_progress",
  x: "completed",
  X: "completed",
  "-": "abandoned",
  "~": "abandoned",
  "!": "blocked",
}

/** What a mark our export never writes is read as, for the reply's notes. */
const FOREIGN_MARK_NOTES: Readonly<Record<string, string>> = {
  "/": "[/] read as in progress",
  "~": "[~] read as dropped",
}

const REASON_PREFIX = { blocked: "  - blocked: ", abandoned: "  - dropped: " } as const

// Extra text after the name is allowed so a future export may add a version or a hint.
const MARKER_RE = /^<!--\s*opencode-todo(?:[\s:].*)?-->$/s
const HEADING_RE = /^(#{1,6})(?:[ \t]+(.*))?$/s
// `(.)` with the u flag takes one code point, so a mark like an emoji reports as unknown, not as junk.
const TASK_RE = /^[-*+][ \t]+\[(.)\](.*)$/su
const BLOCKER_RE = /^\s+[-*+][ \t]+(blocked|dropped):(.*)$/is
// Greedy text, so the last comment on the line is the one that counts.
const BLOCKER_COMMENT_RE = /^(.*)<!--\s*blocker:(.*?)-->$/is
const EMPTY_BLOCKER_COMMENT = "<!-- blocker: -->"
const LINE_BREAK = /\r\n|\r|\n/

export function renderMarkdown(list: TodoList): string {
  const out: string[] = [EXPORT_MARKER, DOCUMENT_TITLE]
  for (const phase of list) {
    // neutralize: a record stored before the character rule writes its escapes, so the file reads back.
    out.push("", `## ${neutralize(phase.name)}`)
    for (const task of phase.tasks) {
      const text = neutralize(task.text)
      // An empty comment after a text that ends in one keeps import from cutting the text's own.
      const guard = BLOCKER_COMMENT_RE.test(text) ? ` ${EMPTY_BLOCKER_COMMENT}` : ""
      out.push(`- ${STATUS_BOXES[task.status]} ${text}${guard}`)
      // A stray reason on another status would not parse back; valid lists never carry one.
      if ((task.status === "blocked" || task.status === "abandoned") && task.blocker !== undefined)
        out.push(`${REASON_PREFIX[task.status]}${neutralize(task.blocker)}`)
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

/** A parsed file: the list as written, notes on what was read from forms our export never writes, task lines. */
export interface MarkdownRead {
  readonly list: TodoList
  /** e.g. `lines 3, 7: [~] read as dropped`; empty for a file in our own format. */
  readonly notes: readonly string[]
  /** The 1-based line of each task, by its text. */
  readonly lines: ReadonlyMap<string, number>
}

export interface ParseOptions {
  /**
   * Whether errors may quote the file's text. Off for a file that is not our export: it may be a `.env` or a
   * `.netrc` behind a link, and the error reaches the model; the line number and the problem still say enough.
   */
  readonly quote?: boolean
}

/** The list a file holds, exactly as written (no normal form: see import.ts), or the first error. */
export function parseMarkdown(
  text: string,
  limits: Limits = DEFAULT_LIMITS,
  options: ParseOptions = {},
): Result<TodoList> {
  const read = readMarkdown(text, limits, options)
  return read.ok ? { ok: true, value: read.value.list } : read
}

/** What reading a file has gathered so far; the line readers below add to it. */
interface ReadState {
  readonly limits: Limits
  readonly quoting: boolean
  /** The index of the title line (-1 without one) and the phase it names for tasks above any heading. */
  readonly title: number
  readonly titlePhase: string | undefined
  readonly noteLines: Map<string, number[]>
  readonly phases: DraftPhase[]
  readonly phaseByName: Map<string, DraftPhase>
  readonly taskLine: Map<string, number>
  // The task a blocker line would attach to; a heading ends it.
  last: { readonly phase: DraftPhase; readonly index: number; readonly line: number } | undefined
  readonly blockerSeen: Set<string>
}

/** ` "text"` when quoting, else nothing. */
const named = (state: ReadState, value: string): string => (state.quoting ? ` ${quotePreview(value)}` : "")
const got = (state: ReadState, line: string): string => (state.quoting ? `; got ${quotePreview(line)}` : "")

function note(state: ReadState, index: number, what: string): void {
  const at = state.noteLines.get(what)
  if (at) at.push(index + 1)
  else state.noteLines.set(what, [index + 1])
}

export function readMarkdown(
  text: string,
  limits: Limits = DEFAULT_LIMITS,
  options: ParseOptions = {},
): Result<MarkdownRead> {
  const lines = splitLines(text)
  const title = titleLine(lines)
  const state: ReadState = {
    limits,
    quoting: options.quote !== false,
    title,
    titlePhase: title === -1 ? undefined : loneTitlePhase(lines, title, limits),
    noteLines: new Map(),
    phases: [],
    phaseByName: new Map(),
    taskLine: new Map(),
    last: undefined,
    blockerSeen: new Set(),
  }
  let sawContent = false

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line === "") continue
    const first = !sawContent
    sawContent = true
    if (first && MARKER_RE.test(line)) continue
    if (i === title) continue

    const heading = HEADING_RE.exec(line)
    const task = heading ? null : TASK_RE.exec(line)
    const blocker = heading || task ? null : BLOCKER_RE.exec(line)
    const error = heading
      ? readHeading(state, i, heading)
      : task
        ? readTask(state, i, line, task)
        : blocker
          ? readBlocker(state, line, blocker)
          : expected(got(state, line))
    if (error !== undefined) return { ok: false, error: `Line ${i + 1}: ${error}` }
  }

  const list: TodoList = state.phases.map((phase) => ({ name: phase.name, tasks: phase.tasks }))
  const bad = checkList(list, limits)
  if (bad) return { ok: false, error: bad }
  const notes = [...state.noteLines].map(([what, at]) => `${linesText(at)}: ${what}`)
  return { ok: true, value: { list, notes, lines: state.taskLine } }
}

/** A phase heading on line `i`: a new phase, or what is wrong with it. */
function readHeading(state: ReadState, i: number, heading: RegExpExecArray): string | undefined {
  const { limits, phases, phaseByName } = state
  const name = (heading[2] ?? "").trimStart()
  const bad = checkText(name, "Phase name", limits, state.quoting)
  if (bad) return bad
  const seen = phaseByName.get(name)
  if (seen) {
    return seen.implicit
      ? `duplicate phase${named(state, name)}: the tasks above the first heading (from line ${seen.line}) already form a phase with that name.`
      : `duplicate phase${named(state, name)} (first on line ${seen.line}); phase names must be unique.`
  }
  if (phases.length >= limits.maxPhases) return tooMany(limits.maxPhases, "phases", "maxPhases")
  const phase: DraftPhase = { name, line: i + 1, implicit: false, tasks: [] }
  phases.push(phase)
  phaseByName.set(name, phase)
  state.last = undefined
  return undefined
}

/** A task line `i`: the task in its phase (the implicit one above any heading), or what is wrong with it. */
function readTask(state: ReadState, i: number, line: string, task: RegExpExecArray): string | undefined {
  const { limits, quoting, phases, taskLine } = state
  const mark = task[1]!
  const rest = task[2]!
  const status = MARK_STATUS[mark]
  if (status === undefined)
    return `unknown status mark ${quotePreview(`[${mark}]`)}${quoting ? ` in ${quotePreview(line)}` : ""}; use [ ] pending, [>] in progress, [x] done, [-] dropped or [!] blocked.`
  if (rest.trim() === "") return `task text is empty${got(state, line)}`
  if (!/^\s/.test(rest)) return expected(got(state, line))
  const foreign = FOREIGN_MARK_NOTES[mark]
  if (foreign) note(state, i, foreign)
  const comment = BLOCKER_COMMENT_RE.exec(rest)
  const taskText = comment ? comment[1]!.trim() : rest.trimStart()
  if (taskText === "") return `task text is empty${got(state, line)}`
  const bad = checkText(taskText, "Task", limits, quoting)
  if (bad) return bad
  const reason = comment ? comment[2]!.trim() : ""
  let read: Task = { text: taskText, status }
  if (reason !== "") {
    if (CLOSED.has(status)) note(state, i, "the <!-- blocker: … --> comment left out: the task is closed")
    else {
      const badReason = checkText(reason, "Blocker reason", limits, quoting)
      if (badReason) return badReason
      note(
        state,
        i,
        status === "blocked"
          ? "the <!-- blocker: … --> comment read as the blocker reason"
          : "the <!-- blocker: … --> comment read as blocked, with that reason",
      )
      read = { text: taskText, status: "blocked", blocker: reason }
      state.blockerSeen.add(taskText)
    }
  }
  const seenLine = taskLine.get(taskText)
  if (seenLine !== undefined)
    return `duplicate task${named(state, taskText)} (first on line ${seenLine}); task texts must be unique across the list.`
  // Stop here rather than parse a huge file to the end only to refuse it.
  if (taskLine.size >= limits.maxTasks) return tooMany(limits.maxTasks, "tasks", "maxTasks")
  taskLine.set(taskText, i + 1)
  let phase = phases[phases.length - 1]
  if (phase === undefined) {
    const { title, titlePhase } = state
    if (titlePhase !== undefined)
      note(
        state,
        title,
        `tasks under the title ${quotePreview(titlePhase)} form phase ${quotePreview(titlePhase)}`,
      )
    const name = titlePhase ?? DEFAULT_PHASE
    phase = { name, line: i + 1, implicit: true, tasks: [] }
    phases.push(phase)
    state.phaseByName.set(name, phase)
  }
  phase.tasks.push(read)
  state.last = { phase, index: phase.tasks.length - 1, line: i + 1 }
  return undefined
}

/** A blocker or drop-reason line: the reason on the task above it, or what is wrong with it. */
function readBlocker(state: ReadState, line: string, blocker: RegExpExecArray): string | undefined {
  const { last } = state
  if (last === undefined) return `a blocker line must follow a blocked task "- [!] …"${got(state, line)}`
  const owner = last.phase.tasks[last.index]!
  const dropped = blocker[1]!.toLowerCase() === "dropped"
  if (dropped && owner.status !== "abandoned")
    return `a "dropped:" line belongs under a dropped task "- [-] …", but task${named(state, owner.text)} (line ${last.line}) is not marked dropped.`
  if (!dropped && owner.status !== "blocked")
    return `a blocker line belongs under a blocked task "- [!] …", but task${named(state, owner.text)} (line ${last.line}) is not marked blocked.`
  if (state.blockerSeen.has(owner.text))
    return `task${named(state, owner.text)} (line ${last.line}) already has a blocker line.`
  const reason = blocker[2]!.trim()
  const bad = checkText(reason, dropped ? "Drop reason" : "Blocker reason", state.limits, state.quoting)
  if (bad) return bad
  state.blockerSeen.add(owner.text)
  last.phase.tasks[last.index] = { text: owner.text, status: owner.status, blocker: reason }
  return undefined
}

// A file with hundreds of [~] lines gets one short note, not a wall of numbers.
const NOTE_LINES_SHOWN = 5

/** "line 3", "lines 3, 7", "lines 2, 3, 4, 5, 6 and 4 more". */
export function linesText(at: readonly number[]): string {
  if (at.length === 1) return `line ${at[0]}`
  const shown = at.slice(0, NOTE_LINES_SHOWN).join(", ")
  return at.length > NOTE_LINES_SHOWN
    ? `lines ${shown} and ${at.length - NOTE_LINES_SHOWN} more`
    : `lines ${shown}`
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

/** The title's text when the title is the file's only heading and can name a phase; else undefined. */
function loneTitlePhase(lines: readonly string[], title: number, limits: Limits): string | undefined {
  for (let i = 0; i < lines.length; i++) if (i !== title && HEADING_RE.test(lines[i]!)) return undefined
  const name = (HEADING_RE.exec(lines[title]!)![2] ?? "").trimStart()
  return checkText(name, "Phase name", limits) === undefined ? name : undefined
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
