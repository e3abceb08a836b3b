// The compact forms the list history is stored in: flat rows, row deltas, shortened ids and a short stable
// hash. A list is a sequence of rows, the exact step from one list to the next a row delta, and a
// conversation id is shortened against the id before it. Pure and total: every decoder answers undefined (or
// false) for input it cannot read, and never throws. The row and delta forms: docs/design.md.

import type { Task, TaskStatus, TodoList } from "../list/types.ts"

export type Row = string | readonly [string, string]

/** A status-only delta ("17c18i"), or `[keep, removed, inserted rows, statuses, statuses with a reason]`. */
export type Delta =
  | string
  | readonly [number, number, readonly Row[], string, readonly (readonly [number, string, string])[]]

const CODE: Readonly<Record<TaskStatus, string>> = {
  pending: "p",
  in_progress: "i",
  completed: "c",
  abandoned: "a",
  blocked: "b",
}
const STATUS_OF: Readonly<Record<string, TaskStatus>> = {
  p: "pending",
  i: "in_progress",
  c: "completed",
  a: "abandoned",
  b: "blocked",
}
const PHASE = "#"
const STATUS_RUN = /^(?:\d+[picab])*$/

export function statusCode(status: TaskStatus): string {
  return CODE[status]
}

export function statusOf(code: string): TaskStatus | undefined {
  return Object.hasOwn(STATUS_OF, code) ? STATUS_OF[code] : undefined
}

function taskRow(task: Task): Row {
  const head = CODE[task.status] + task.text
  return task.blocker === undefined ? head : [head, task.blocker]
}

export function toRows(list: TodoList): Row[] {
  const rows: Row[] = []
  for (const phase of list) {
    rows.push(PHASE + phase.name)
    for (const task of phase.tasks) rows.push(taskRow(task))
  }
  return rows
}

export function isRow(value: unknown): value is Row {
  if (typeof value === "string")
    return value.length > 0 && (value[0] === PHASE || statusOf(value[0]!) !== undefined)
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === "string" &&
    typeof value[1] === "string" &&
    value[0].length > 0 &&
    statusOf(value[0][0]!) !== undefined
  )
}

const head = (row: Row): string => (typeof row === "string" ? row : row[0])
const isPhaseRow = (row: Row): boolean => typeof row === "string" && row[0] === PHASE
/** Two rows are the same phase, or the same task whatever its status. Allocates only for a status change. */
function sameThing(a: Row, b: Row): boolean {
  const ha = head(a)
  const hb = head(b)
  if (ha === hb) return true
  if (ha[0] === PHASE || hb[0] === PHASE || ha.length !== hb.length) return false
  return ha.slice(1) === hb.slice(1)
}

/** The list the rows spell, or undefined when they do not spell one (a task before any phase, a bad row). */
export function fromRows(rows: readonly Row[]): TodoList | undefined {
  const list: { name: string; tasks: Task[] }[] = []
  for (const row of rows) {
    if (!isRow(row)) return undefined
    if (isPhaseRow(row)) {
      list.push({ name: head(row).slice(1), tasks: [] })
      continue
    }
    const phase = list[list.length - 1]
    if (!phase) return undefined
    const text = head(row)
    const status = STATUS_OF[text[0]!]!
    phase.tasks.push(
      typeof row === "string"
        ? { text: text.slice(1), status }
        : { text: text.slice(1), status, blocker: row[1] },
    )
  }
  return list
}

export function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!sameRow(a[i]!, b[i]!)) return false
  return true
}

function sameRow(a: Row, b: Row): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b
  return a[0] === b[0] && a[1] === b[1]
}

/** The step from `before` to `after`; `applyDelta(before, diffRows(before, after))` spells `after`. */
export function diffRows(before: readonly Row[], after: readonly Row[]): Delta {
  let keep = 0
  const most = Math.min(before.length, after.length)
  while (keep < most && sameThing(before[keep]!, after[keep]!)) keep++
  let tail = 0
  while (tail < most - keep && sameThing(before[before.length - 1 - tail]!, after[after.length - 1 - tail]!))
    tail++
  const removed = before.length - keep - tail
  const inserted = after.slice(keep, after.length - tail)
  let statuses = ""
  const reasons: [number, string, string][] = []
  const kept = (i: number, j: number) => {
    const a = before[i]!
    const b = after[j]!
    if (sameRow(a, b)) return
    if (typeof b === "string") statuses += `${j}${b[0]}`
    else reasons.push([j, b[0][0]!, b[1]])
  }
  for (let i = 0; i < keep; i++) kept(i, i)
  for (let t = 1; t <= tail; t++) kept(before.length - t, after.length - t)
  if (removed === 0 && inserted.length === 0 && reasons.length === 0) return statuses
  return [keep, removed, inserted, statuses, reasons]
}

export function isDelta(value: unknown): value is Delta {
  if (typeof value === "string") return STATUS_RUN.test(value)
  if (!Array.isArray(value) || value.length !== 5) return false
  const [keep, removed, inserted, statuses, reasons] = value as unknown[]
  return (
    Number.isSafeInteger(keep) &&
    (keep as number) >= 0 &&
    Number.isSafeInteger(removed) &&
    (removed as number) >= 0 &&
    Array.isArray(inserted) &&
    inserted.every(isRow) &&
    typeof statuses === "string" &&
    STATUS_RUN.test(statuses) &&
    Array.isArray(reasons) &&
    reasons.every(
      (r) =>
        Array.isArray(r) &&
        r.length === 3 &&
        Number.isSafeInteger(r[0]) &&
        typeof r[1] === "string" &&
        statusOf(r[1]) !== undefined &&
        typeof r[2] === "string",
    )
  )
}

/** Applies a delta to `rows` in place; false (rows then unusable) when it does not fit them. */
export function applyDelta(rows: Row[], delta: Delta): boolean {
  let statuses: string
  let reasons: readonly (readonly [number, string, string])[] = []
  if (typeof delta === "string") statuses = delta
  else {
    const [keep, removed, inserted] = delta
    if (keep + removed > rows.length) return false
    rows.splice(keep, removed, ...inserted)
    statuses = delta[3]
    reasons = delta[4]
  }
  // "17c18i": digits, then a status code. Read by hand: this runs for every entry of every replay.
  let i = 0
  for (let at = 0; at < statuses.length; at++) {
    const c = statuses.charCodeAt(at)
    if (c >= 48 && c <= 57) {
      i = i * 10 + (c - 48)
      continue
    }
    const row = rows[i]
    if (row === undefined || isPhaseRow(row) || statusOf(statuses[at]!) === undefined) return false
    rows[i] = statuses[at]! + head(row).slice(1)
    i = 0
  }
  for (const [i, code, reason] of reasons) {
    const row = rows[i]
    if (row === undefined || isPhaseRow(row)) return false
    rows[i] = [code + head(row).slice(1), reason]
  }
  return true
}

// Shortened ids: "" is the id before; otherwise one character (0-9A-Za-z) says how many leading characters it
// shares with the id before, and the rest follows. Host ids share their prefix and clock digits.
const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export function shortenId(previous: string, id: string): string {
  if (id === previous) return ""
  let shared = 0
  const most = Math.min(previous.length, id.length, DIGITS.length - 1)
  while (shared < most && previous[shared] === id[shared]) shared++
  return DIGITS[shared]! + id.slice(shared)
}

export function expandId(previous: string, short: string): string | undefined {
  if (short === "") return previous
  const shared = DIGITS.indexOf(short[0]!)
  if (shared < 0 || shared > previous.length) return undefined
  return previous.slice(0, shared) + short.slice(1)
}

/** A short stable hash (FNV-1a, two lanes, 41 bits in at most 7 base-62 digits): for call ids and list fingerprints. */
export function shortHash(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13)
  }
  let n = (a >>> 0) * 512 + ((b >>> 0) & 511)
  let out = ""
  do {
    out = DIGITS[n % 62]! + out
    n = Math.floor(n / 62)
  } while (n > 0)
  return out
}
