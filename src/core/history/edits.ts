// User edits made while the session is reverted, kept so they can be made again on another list (on redo,
// after a second revert, or on commit). On the list it was made on, an edit gives back exactly what the user
// saw; on any other it is made again as operations (`remake`), and the result ends in the one normal form.
// How: docs/design.md.

import { executeOps } from "../list/execute.ts"
import { checkList } from "../list/queries.ts"
import { normalize } from "../list/reducers.ts"
import type { Limits, Op, Phase, Task, TaskStatus, TodoList } from "../list/types.ts"
import { fromRows, isRow, type Row, sameRows, shortHash, statusCode, statusOf, toRows } from "./rows.ts"
import { HISTORY_CAPS } from "./spans.ts"

/** The most ops an edit keeps: a /todo verb or a dialog action is one call's worth. */
const MAX_EDIT_OPS = 50

/**
 * One change of a replacing edit, by name: `s` a task's status (and reason), `+` a task added to a phase
 * after a task (or first), `m` a task moved to a phase, `-` a task removed, `#+` a phase added after a
 * phase (or first), `#-` a phase removed.
 */
export type EditItem =
  | readonly ["s", string, string, string?]
  | readonly ["+", string, string, string, string | null, string?]
  | readonly ["m", string, string, string | null]
  | readonly ["-", string]
  | readonly ["#+", string, string | null]
  | readonly ["#-", string]

/** An edit made while reverted, as stored. */
export interface PendingEdit {
  /** Fingerprint of the rows of the list it was made on. */
  readonly b: string
  /** The rows of the list it made. */
  readonly a: readonly Row[]
  /** The typed ops, for an edit made by ops. */
  readonly o?: readonly Op[]
  /** The changes by name, for an edit that replaced the list. */
  readonly x?: readonly EditItem[]
}

/** What of an edit made while reverted could not be made again, for the adapter to tell the user once. */
export type DroppedEdit =
  | { readonly kind: "status"; readonly task: string; readonly status: TaskStatus }
  | { readonly kind: "move"; readonly task: string; readonly phase: string }
  | { readonly kind: "ops"; readonly ops: readonly Op[]; readonly error: string }

export function fingerprint(rows: readonly Row[]): string {
  return shortHash(JSON.stringify(rows))
}

/** The edit that turned `before` into `after`; `ops` when the user's edit was made of typed ops. */
export function pendingEdit(before: TodoList, after: TodoList, ops?: readonly Op[]): PendingEdit {
  const b = fingerprint(toRows(before))
  const a = toRows(after)
  return ops !== undefined && ops.length > 0 ? { b, a, o: [...ops] } : { b, a, x: editItems(before, after) }
}

/** An edit as stored, within the caps a read holds it to (HISTORY_CAPS): a list's rows, a call's ops. */
export function isPendingEdit(value: unknown): value is PendingEdit {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const v = value as Record<string, unknown>
  if (typeof v.b !== "string" || !Array.isArray(v.a) || v.a.length > HISTORY_CAPS.rows) return false
  if (!v.a.every(isRow) || fromRows(v.a) === undefined) return false
  if (v.o !== undefined && !(Array.isArray(v.o) && v.o.length <= MAX_EDIT_OPS)) return false
  if (v.o !== undefined && !v.o.every((op) => typeof op === "object" && op !== null)) return false
  if (
    v.x !== undefined &&
    !(Array.isArray(v.x) && v.x.length <= 2 * HISTORY_CAPS.rows && v.x.every(isEditItem))
  )
    return false
  return (v.o === undefined) !== (v.x === undefined)
}

const str = (v: unknown) => typeof v === "string"
const strOrNull = (v: unknown) => v === null || typeof v === "string"

function isEditItem(value: unknown): value is EditItem {
  if (!Array.isArray(value) || !str(value[1])) return false
  switch (value[0]) {
    case "s":
      return (value.length === 3 || (value.length === 4 && str(value[3]))) && statusOf(value[2]) !== undefined
    case "+":
      return (
        (value.length === 5 || (value.length === 6 && str(value[5]))) &&
        str(value[2]) &&
        statusOf(value[3]) !== undefined &&
        strOrNull(value[4])
      )
    case "m":
      return value.length === 4 && str(value[2]) && strOrNull(value[3])
    case "-":
    case "#-":
      return value.length === 2
    case "#+":
      return value.length === 3 && strOrNull(value[2])
    default:
      return false
  }
}

/** The changes that turn `before` into `after`, by task text and phase name. */
export function editItems(before: TodoList, after: TodoList): EditItem[] {
  const items: EditItem[] = []
  const oldTasks = new Map<string, { task: Task; phase: string }>()
  for (const phase of before)
    for (const task of phase.tasks) oldTasks.set(task.text, { task, phase: phase.name })
  const oldPhases = new Set(before.map((p) => p.name))
  const newPhases = new Set(after.map((p) => p.name))
  after.forEach((phase, i) => {
    if (!oldPhases.has(phase.name)) items.push(["#+", phase.name, i === 0 ? null : after[i - 1]!.name])
  })
  const seen = new Set<string>()
  for (const phase of after)
    phase.tasks.forEach((task, i) => {
      seen.add(task.text)
      const old = oldTasks.get(task.text)
      const previous = i === 0 ? null : phase.tasks[i - 1]!.text
      if (!old) {
        const code = statusCode(task.status)
        items.push(
          task.blocker === undefined
            ? ["+", task.text, phase.name, code, previous]
            : ["+", task.text, phase.name, code, previous, task.blocker],
        )
        return
      }
      if (old.phase !== phase.name) items.push(["m", task.text, phase.name, previous])
      if (old.task.status !== task.status || old.task.blocker !== task.blocker)
        items.push(
          task.blocker === undefined
            ? ["s", task.text, statusCode(task.status)]
            : ["s", task.text, statusCode(task.status), task.blocker],
        )
    })
  for (const text of oldTasks.keys()) if (!seen.has(text)) items.push(["-", text])
  for (const phase of before) if (!newPhases.has(phase.name)) items.push(["#-", phase.name])
  return items
}

export interface Remade {
  readonly list: TodoList
  readonly dropped: readonly DroppedEdit[]
}

/** Makes `edit` again on `list`: exactly on the list it was made on, else as operations (see the header). */
export function remake(list: TodoList, edit: PendingEdit, limits: Limits): Remade {
  const rows = toRows(list)
  if (fingerprint(rows) === edit.b) {
    const exact = fromRows(edit.a)
    if (exact) return { list: exact, dropped: [] }
  }
  if (edit.o !== undefined) {
    try {
      const result = executeOps(list, edit.o, limits)
      if (result.ok) return { list: result.list, dropped: [] }
      return { list, dropped: [{ kind: "ops", ops: edit.o, error: result.error }] }
    } catch {
      return { list, dropped: [{ kind: "ops", ops: edit.o, error: "The edit could not be read." }] }
    }
  }
  const made = applyItems(list, edit.x ?? [])
  const normal = normalize(made.list).list
  // A list the edit would take over the limits is not made: the edit is dropped whole.
  if (checkList(normal, limits) !== undefined) return { list, dropped: made.all }
  return { list: sameRows(toRows(normal), rows) ? list : normal, dropped: made.dropped }
}

interface Draft {
  name: string
  tasks: Task[]
}

function applyItems(
  list: TodoList,
  items: readonly EditItem[],
): { list: TodoList; dropped: DroppedEdit[]; all: DroppedEdit[] } {
  const phases: Draft[] = list.map((p) => ({ name: p.name, tasks: [...p.tasks] }))
  const dropped: DroppedEdit[] = []
  const all: DroppedEdit[] = []
  const phaseOf = (name: string) => phases.find((p) => p.name === name)
  const locate = (text: string) => {
    for (const phase of phases) {
      const i = phase.tasks.findIndex((t) => t.text === text)
      if (i >= 0) return { phase, i }
    }
    return undefined
  }
  const ensurePhase = (name: string, after: string | null = null): Draft => {
    const found = phaseOf(name)
    if (found) return found
    const made: Draft = { name, tasks: [] }
    const at = after === null ? -1 : phases.findIndex((p) => p.name === after)
    phases.splice(after === null ? 0 : at < 0 ? phases.length : at + 1, 0, made)
    return made
  }
  const insert = (phase: Draft, task: Task, after: string | null) => {
    const at = after === null ? -1 : phase.tasks.findIndex((t) => t.text === after)
    phase.tasks.splice(after === null ? 0 : at < 0 ? phase.tasks.length : at + 1, 0, task)
  }
  const task = (text: string, code: string, reason?: string): Task => {
    const status = statusOf(code) ?? "pending"
    return reason === undefined ? { text, status } : { text, status, blocker: reason }
  }
  for (const item of items) {
    switch (item[0]) {
      case "#+":
        ensurePhase(item[1], item[2])
        break
      case "#-": {
        const i = phases.findIndex((p) => p.name === item[1])
        if (i >= 0) phases.splice(i, 1)
        break
      }
      case "-": {
        const hit = locate(item[1])
        if (hit) hit.phase.tasks.splice(hit.i, 1)
        break
      }
      case "+": {
        const hit = locate(item[1])
        // Named only if the whole edit is dropped (over the limits): a task added with its status.
        all.push({ kind: "status", task: item[1], status: statusOf(item[3]) ?? "pending" })
        if (hit) hit.phase.tasks[hit.i] = task(item[1], item[3], item[5])
        else insert(ensurePhase(item[2]), task(item[1], item[3], item[5]), item[4])
        break
      }
      case "m": {
        const hit = locate(item[1])
        const lost: DroppedEdit = { kind: "move", task: item[1], phase: item[2] }
        all.push(lost)
        if (!hit) {
          dropped.push(lost)
          break
        }
        const [moved] = hit.phase.tasks.splice(hit.i, 1)
        insert(ensurePhase(item[2]), moved!, item[3])
        break
      }
      case "s": {
        const hit = locate(item[1])
        const lost: DroppedEdit = { kind: "status", task: item[1], status: statusOf(item[2]) ?? "pending" }
        all.push(lost)
        if (!hit) {
          dropped.push(lost)
          break
        }
        hit.phase.tasks[hit.i] = task(item[1], item[2], item[3])
        break
      }
    }
  }
  const out: Phase[] = phases.map((p) => ({ name: p.name, tasks: p.tasks }))
  return { list: out, dropped, all }
}
