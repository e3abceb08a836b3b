// The plugin's vocabulary, in one home so the model, the user and the sidebar read the same words for the
// same thing. Its id, the default phase, how each status is written (in words, as a box in text and Markdown,
// as a glyph in the sidebar), the progress count and its one rule, the small text helpers every message uses,
// and the did-you-mean rules (a mistyped word, a close phase name, the other names of an op).

import { lookalikes } from "./lookalike.ts"
import type { OpName, TaskStatus } from "./types.ts"

/** The plugin's id: the host's plugin id, the log service, the prefix of its command names. */
export const PLUGIN_ID = "opencode-todo"

/** The tool's name, as the model calls it and as the host reports its results. */
export const TODO_TOOL = "todo"

/** The phase tasks go to when none is named: `init {items}`, Markdown above the first heading, a first append. */
export const DEFAULT_PHASE = "Tasks"

/** User-facing status words ("abandoned" reads as "dropped", "completed" as "done"). */
export const STATUS_WORDS: Readonly<Record<TaskStatus, string>> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "done",
  abandoned: "dropped",
  blocked: "blocked",
}

/** The box each status is printed with in plain text: the model's list view and TODO.md's checklist. */
export const STATUS_BOXES: Readonly<Record<TaskStatus, string>> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
  abandoned: "[-]",
  blocked: "[!]",
}

/** One character per status, for the sidebar and the /todo dialog. */
export const STATUS_GLYPHS: Readonly<Record<TaskStatus, string>> = {
  in_progress: "▶",
  pending: "○",
  completed: "✓",
  abandoned: "✗",
  blocked: "⊘",
}

/**
 * The counts a progress line needs (a `Counts` is one). The one rule for progress: dropped tasks leave
 * the count and are shown apart, so "4/4 done · 1 dropped" says all the work that stayed is done and
 * one task was let go; blocked tasks stay in the count (they are open work) and are named beside it.
 */
export interface Progress {
  readonly completed: number
  readonly abandoned: number
  readonly blocked: number
  readonly total: number
}

/** The tasks a count is out of: every task but the dropped ones. */
export function countedTasks(progress: Progress): number {
  return progress.total - progress.abandoned
}

/** "3/11": done tasks out of the tasks not dropped. */
export function tallyText(progress: Progress): string {
  return `${progress.completed}/${countedTasks(progress)}`
}

/** A phase's count: "2/3", or "dropped" when every task it has is dropped (not "0/0"). */
export function phaseTallyText(progress: Progress): string {
  return countedTasks(progress) === 0 && progress.abandoned > 0 ? "dropped" : tallyText(progress)
}

/** "3/11 done" */
export function doneText(progress: Progress): string {
  return `${tallyText(progress)} done`
}

/** "1 blocked" */
export function blockedText(progress: Progress): string {
  return `${progress.blocked} blocked`
}

/** " · 1 dropped", or "" when no task is dropped: the dropped tasks, apart from the count. */
export function droppedText(progress: Progress): string {
  return progress.abandoned > 0 ? ` · ${progress.abandoned} dropped` : ""
}

/** "3/11 done, 1 blocked · 1 dropped"; the blocked and dropped parts only when there are such tasks. */
export function progressText(progress: Progress): string {
  const blocked = progress.blocked > 0 ? `, ${blockedText(progress)}` : ""
  return `${doneText(progress)}${blocked}${droppedText(progress)}`
}

/** "2 tasks open": pending and in progress, the tasks a completion reminder counts (blocked ones apart). */
export function openText(
  progress: Progress & { readonly pending: number; readonly inProgress: number },
): string {
  const open = progress.pending + progress.inProgress
  return `${open} ${open === 1 ? "task" : "tasks"} open`
}

/**
 * Starts every injected text. It tells the model the message is automatic, so it does not treat a reminder
 * as the user's wish, and it lets the tracker recognise its own messages when they come back as user messages.
 */
export const MARKER = "[todo plugin: automatic message, not written by the user]"

/**
 * Characters no task text, phase name or reason may carry: C0 and C1 controls and DEL (terminal escapes, BEL,
 * NUL), bidi controls (text that reads differently than it is), line and paragraph separators, lone surrogates
 * (not text; every one becomes the same U+FFFD in a file). CR and LF are here too; the one-line rule names them.
 */
const HOSTILE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function kindOf(code: number): string {
  if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return "a control character"
  if (code === 0x2028) return "a line separator"
  if (code === 0x2029) return "a paragraph separator"
  if (code >= 0xd800 && code <= 0xdfff) return "a lone surrogate"
  return "a bidi control"
}

/** "U+001B": a code point as a reader can name it, never the raw character. */
function codePointName(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`
}

/** The marker's head, which no text from outside may read as. */
const MARKER_HEAD = MARKER.slice(0, MARKER.indexOf(":") + 1)

/**
 * Where text reads as the marker's head, however it is spelled: invisible or format characters, odd
 * spaces, fullwidth or look-alike letters, other brackets (see lookalike.ts). Printable ASCII without a
 * colon cannot, and most text is that, so it is passed over without folding.
 */
function markerLookalikes(text: string): ReturnType<typeof lookalikes> {
  return /^[\x20-\x39\x3b-\x7e]*$/.test(text) ? [] : lookalikes(text, MARKER_HEAD)
}

/**
 * Why `text` may not be stored, or undefined: the first hostile character with its kind, code point and 1-based
 * position ("a control character U+001B at position 4"), or text that reads as the plugin's marker, which would
 * let text speak in the plugin's voice.
 */
export function hostileText(text: string): string | undefined {
  const match = HOSTILE.exec(text)
  if (match) {
    const code = match[0].charCodeAt(0)
    const position = Array.from(text.slice(0, match.index)).length + 1
    return `has ${kindOf(code)} ${codePointName(code)} at position ${position}; remove it`
  }
  if (markerLookalikes(text).length > 0) return `reads as the plugin's marker "${MARKER_HEAD}"; reword it`
  return undefined
}

/** "\u001b": one UTF-16 unit as a JSON escape, so a quoted literal still parses to the exact text. */
const unitEscape = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`

/**
 * Text that reads as the marker, defused: its first character and everything in it that is not printable ASCII
 * become escapes (`\u005btodo\u200bplugin:`), so it no longer reads as the marker and the hidden characters show.
 */
function defuseMarker(text: string): string {
  const found = markerLookalikes(text)
  if (found.length === 0) return text
  let out = ""
  let at = 0
  for (const { start, end } of found) {
    out += text.slice(at, start)
    for (let i = start; i < end; i++) {
      const unit = text[i]!
      out += i === start || !/[\x20-\x7e]/.test(unit) ? unitEscape(unit) : unit
    }
    at = end
  }
  return out + text.slice(at)
}

/**
 * Text safe for a terminal, a log or the model: every hostile character becomes its escape (`\u001b`), and text
 * that reads as the plugin's marker is defused the same way. Stored records and files from before the rules may
 * still hold either; they load, and are shown this way.
 */
export function neutralize(text: string): string {
  const defused = defuseMarker(text)
  if (!HOSTILE.test(defused)) return defused
  return defused.replace(new RegExp(HOSTILE.source, "g"), unitEscape)
}

/**
 * Quotes task text, a phase name or a reason for the model. The result is a JSON string literal: inner quotes and
 * backslashes are escaped, so the text cannot end its own quotation and speak on, and pasting the literal as a
 * JSON value in a tool call gives back the exact text.
 */
export function quote(text: string): string {
  return neutralize(JSON.stringify(text))
}

/**
 * The text inside a quoted literal that a model copied with its escapes still in (`Say \"hi\"`), or undefined
 * when `text` has no escapes or is not the inside of a JSON string.
 */
export function unquote(text: string): string | undefined {
  if (!text.includes("\\")) return undefined
  try {
    const value: unknown = JSON.parse(`"${text}"`)
    return typeof value === "string" && value !== text ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Quotes text from outside for any message the model reads (results, errors, notices), shortened to one line of at
 * most `max` characters first: the one way such text is shown to the model, so it can neither end its own
 * quotation nor start a line of its own. Cut text ends in "…" inside the quotes.
 */
export function quotePreview(text: string, max = 60): string {
  const flat = text.replace(/[\r\n]+/g, " ")
  return quote(flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`)
}

/**
 * Edits between two words (insert, delete, replace, or swap two neighbours: `dnoe` is one from `done`),
 * for did-you-mean suggestions. O(a·b) time, three rows of memory.
 */
export function editDistance(a: string, b: string): number {
  let before = Array.from({ length: b.length + 1 }, () => 0)
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, before[j - 2]! + 1)
      row.push(best)
    }
    before = prev
    prev = row
  }
  return prev[b.length]!
}

/**
 * The word of `words` a mistyped one most likely meant: the nearest by edit distance, if it is within a third
 * of that word's length (at least one edit) and no other word is as near; else undefined (also for an exact
 * match, which is no typo). The one did-you-mean rule: /todo's verbs and the tool's ops use it.
 */
export function nearestWord(typed: string, words: readonly string[]): string | undefined {
  const word = typed.toLowerCase()
  // No word is within reach of a much longer one; a pasted paragraph is not searched.
  if (word.length > Math.max(0, ...words.map((w) => w.length)) + 2) return undefined
  const ranked = words
    .map((candidate) => ({ candidate, distance: editDistance(word, candidate) }))
    .sort((x, y) => x.distance - y.distance)
  const [best, next] = ranked
  if (!best || best.distance === 0) return undefined
  if (best.distance > Math.max(1, Math.floor(best.candidate.length / 3))) return undefined
  return next && next.distance === best.distance ? undefined : best.candidate
}

/** The words of a name, lower case, without punctuation: "Request validation" → ["request", "validation"]. */
function nameWords(name: string): string[] {
  return name.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

/** True when `part`'s words appear in `whole`, in order and side by side. */
function holds(whole: readonly string[], part: readonly string[]): boolean {
  for (let i = 0; i + part.length <= whole.length; i++)
    if (part.every((word, k) => whole[i + k] === word)) return true
  return false
}

/** Names longer than this are not compared letter by letter (edit distance grows with the product of lengths). */
const CLOSE_NAME_MAX = 80

/**
 * The name of `names` that `name` (not among them) most likely meant: one that differs only in case, spaces
 * or punctuation, else the nearest within a third of its length in edits (a typo), else one whose words hold
 * the other's ("Validation" after a rename to "Request validation"); undefined when none is close. Names with
 * different numbers are never close: "Phase 3" is a new phase beside "Phase 2".
 */
export function closeName(name: string, names: readonly string[]): string | undefined {
  const wanted = nameWords(name)
  if (wanted.length === 0) return undefined
  const flat = wanted.join(" ")
  const numbers = (words: readonly string[]) => words.filter((w) => /\p{N}/u.test(w)).join(" ")
  let best: string | undefined
  let bestScore = Number.POSITIVE_INFINITY
  for (const other of names) {
    const theirs = nameWords(other)
    if (other === name || theirs.length === 0 || numbers(theirs) !== numbers(wanted)) continue
    const otherFlat = theirs.join(" ")
    let score = Number.POSITIVE_INFINITY
    if (otherFlat === flat) score = 0
    else if (holds(theirs, wanted) || holds(wanted, theirs)) score = CLOSE_NAME_MAX
    else if (flat.length <= CLOSE_NAME_MAX && otherFlat.length <= CLOSE_NAME_MAX) {
      const distance = editDistance(flat, otherFlat)
      if (distance <= Math.max(1, Math.floor(otherFlat.length / 3))) score = distance
    }
    if (score < bestScore) {
      best = other
      bestScore = score
    }
  }
  return best
}

/**
 * Words a model may send as an op, and the ops they most likely mean, the likeliest first. The tool answers
 * such a call with an error naming these (nothing runs under a guessed name: `update` may mean a rename or
 * a status).
 */
export const OP_SYNONYMS: Readonly<Record<string, readonly OpName[]>> = {
  complete: ["done"],
  completed: ["done"],
  finish: ["done"],
  finished: ["done"],
  close: ["done"],
  resolve: ["done"],
  add: ["append"],
  insert: ["append"],
  push: ["append"],
  create: ["append", "init"],
  new: ["append", "init"],
  plan: ["init"],
  reset: ["init"],
  replace: ["init"],
  update: ["rename", "done", "start"],
  edit: ["rename"],
  change: ["rename"],
  retitle: ["rename"],
  remove: ["rm"],
  delete: ["rm"],
  del: ["rm"],
  clear: ["rm"],
  list: ["view"],
  show: ["view"],
  get: ["view"],
  read: ["view"],
  status: ["view"],
  pause: ["block"],
  wait: ["block"],
  hold: ["block"],
  resume: ["unblock", "start"],
  unpause: ["unblock"],
  cancel: ["drop"],
  skip: ["drop"],
  abandon: ["drop"],
  discard: ["drop"],
  begin: ["start"],
  continue: ["start"],
  activate: ["start"],
  work: ["start"],
}

/** Statuses a model may send as a field (`{task, status: "done"}`), spaces and dashes read as "_", and the op that sets each. */
export const STATUS_OPS: Readonly<Record<string, OpName>> = {
  done: "done",
  complete: "done",
  completed: "done",
  finished: "done",
  in_progress: "start",
  started: "start",
  active: "start",
  blocked: "block",
  dropped: "drop",
  abandoned: "drop",
  cancelled: "drop",
  canceled: "drop",
  skipped: "drop",
}

/** Quotes a call's field names: at most 5, each shortened, so a hostile call cannot flood the reply. */
export function quoteKeys(keys: readonly string[]): string {
  const shown = keys
    .slice(0, 5)
    .map((k) => quotePreview(k, 30))
    .join(", ")
  return keys.length > 5 ? `${shown} and ${keys.length - 5} more` : shown
}

/** Shortens text to one line of at most `max` characters, so a runaway input cannot flood a message. */
export function preview(text: string, max = 60): string {
  const flat = neutralize(text.replace(/[\r\n]+/g, " "))
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** Folds free text (a blocker reason) onto one line: a model may send a paragraph, which is folded, not refused. */
export function foldLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim()
}

/** The error for a call with more ops than a call may carry. */
export function tooManyOpsText(count: number, limit: number): string {
  return `The call has ${count} ops; the limit is ${limit}. Split it into several calls.`
}
