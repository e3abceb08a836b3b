// Turns untrusted tool arguments (JSON written by a model) into typed ops: batch splitting, op inference,
// field checks; and parses stored snapshots. Errors name the field and what was expected, so a retry can succeed.

import { checkList, checkText, clean } from "./queries.ts"
import { normalize } from "./reducers.ts"
import { fail, isRecord, ok, type Result } from "./result.ts"
import type {
  Limits,
  Op,
  OpName,
  Phase,
  PhaseSpec,
  ScopedTaskTarget,
  Target,
  Task,
  TaskStatus,
  TodoList,
} from "./types.ts"
import { DEFAULT_LIMITS, OP_NAMES, STATUSES } from "./types.ts"
import {
  DEFAULT_PHASE,
  foldLine,
  nearestWord,
  neutralize,
  OP_SYNONYMS,
  quoteKeys,
  quotePreview,
  STATUS_OPS,
  tooManyOpsText,
} from "./words.ts"

type Obj = Readonly<Record<string, unknown>>

const FIELDS = ["op", "ops", "task", "phase", "reason", "items", "list", "after", "to"] as const
const KNOWN: ReadonlySet<string> = new Set(FIELDS)
const OP_LIST = OP_NAMES.join(", ")
/** How an error names what it got instead: "a string", "an empty array", "nothing". */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing"
  if (value === null) return "null"
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array"
  if (typeof value === "string") return value.trim() === "" ? "an empty string" : "a string"
  if (typeof value === "number") return "a number"
  if (typeof value === "boolean") return "a boolean"
  return "an object"
}

/**
 * Models often fill every schema field, sending null, "" or [] for the ones they do not mean.
 * Those count as absent, so `{op: "done", task: "X", phase: null, items: []}` is a plain task target.
 */
function present(value: unknown): boolean {
  if (value === undefined || value === null) return false
  if (typeof value === "string") return value.trim() !== ""
  return !(Array.isArray(value) && value.length === 0)
}

function optionalString(obj: Obj, key: string, expected: string, hint = ""): Result<string | undefined> {
  const value = obj[key]
  if (!present(value)) return ok(undefined)
  if (typeof value !== "string")
    return fail(`"${key}" must be ${expected}; got ${describeValue(value)}.${hint}`)
  return ok(clean(value))
}

function unknownKeys(obj: Obj): string[] {
  return Object.keys(obj).filter((key) => !KNOWN.has(key) && present(obj[key]))
}

// ---- the call: one op or a batch --------------------------------------------------------------

export interface SplitCall {
  /** True when the call used `{ops: [...]}`; errors then name the failing op. */
  readonly batch: boolean
  readonly raws: readonly unknown[]
}

/** Splits a call into raw ops: `{ops: [...]}` is a batch, anything else one op. */
export function splitCall(raw: unknown, limits: Limits = DEFAULT_LIMITS): Result<SplitCall> {
  if (!isRecord(raw))
    return fail(`Arguments must be an object with "op" and its fields; got ${describeValue(raw)}.`)
  const ops = raw.ops
  const beside = FIELDS.filter((key) => key !== "ops" && present(raw[key]))
  if (ops === undefined || ops === null) return ok({ batch: false, raws: [raw] })
  if (!Array.isArray(ops)) return fail(`"ops" must be an array of ops; got ${describeValue(ops)}.`)
  if (ops.length === 0) {
    // An empty "ops" beside a single op's fields is schema filler, not an empty batch.
    if (beside.length > 0) return ok({ batch: false, raws: [raw] })
    return fail(`"ops" is empty; give at least one op.`)
  }
  if (beside.length > 0)
    return fail(
      `Give either "ops" (a batch) or one op's fields, not both; found ${beside.map((k) => `"${k}"`).join(", ")} beside "ops".`,
    )
  if (ops.length > limits.maxOpsPerCall) return fail(tooManyOpsText(ops.length, limits.maxOpsPerCall))
  return ok({ batch: true, raws: ops })
}

// ---- op name and inference --------------------------------------------------------------------

function isOpName(name: string): name is OpName {
  return (OP_NAMES as readonly string[]).includes(name)
}

// ---- what to send instead ----------------------------------------------------------------------

/** The fields each op reads; a call shown as the one to send carries only these. */
const FIELDS_OF: Readonly<Record<OpName, readonly string[]>> = {
  init: ["list", "phase", "items"],
  start: ["task", "phase", "reason"],
  done: ["task", "phase", "reason"],
  drop: ["task", "phase", "reason"],
  block: ["task", "phase", "reason"],
  unblock: ["task", "phase", "reason"],
  rm: ["task", "phase", "reason"],
  append: ["phase", "after", "items"],
  rename: ["task", "phase", "to"],
  view: [],
}

/** A call shown in an error is cut from it when longer: the error must stay short. */
const SHOWN_CALL_MAX = 200

/**
 * The call to send instead, as JSON, when `op` with the fields of `raw` it reads is a call the tool accepts
 * on `list`; else undefined. An append's "task" becomes its "items". Never a bare op that would change the
 * list (a bare rm clears it). Text from the call is escaped as every quoted text is (words.ts).
 */
function callToSend(op: OpName, raw: Obj, list: TodoList): string | undefined {
  const call: Record<string, unknown> = { op }
  for (const key of FIELDS_OF[op]) if (present(raw[key])) call[key] = raw[key]
  if (op === "append" && !present(raw.items) && typeof raw.task === "string" && present(raw.task))
    call.items = [raw.task]
  if (op !== "view" && Object.keys(call).length === 1) return undefined
  if (!parseOp(call, list).ok) return undefined
  const text = neutralize(JSON.stringify(call))
  return text.length <= SHOWN_CALL_MAX ? text : undefined
}

/** The op a status sent as a field sets (`{task, status: "done"}` means done); undefined when none does. */
function statusOp(raw: Obj): OpName | undefined {
  const status = raw.status
  if (typeof status !== "string") return undefined
  const word = clean(status)
    .toLowerCase()
    .replace(/[\s-]+/g, "_")
  return Object.hasOwn(STATUS_OPS, word) ? STATUS_OPS[word] : undefined
}

/** The ops an unknown op name most likely means, the likeliest first: a status sent beside it, a synonym, a typo. */
function likelyOps(typed: string, raw: Obj): OpName[] {
  const word = typed.toLowerCase()
  const bare = word.replace(/[^a-z]/g, "").replace(/^(mark|set|task)(?=.)/, "")
  const near = nearestWord(word, [...OP_NAMES, ...Object.keys(OP_SYNONYMS)])
  const named = [word, bare, near].find(
    (w) => w !== undefined && (isOpName(w) || Object.hasOwn(OP_SYNONYMS, w)),
  )
  const ops: OpName[] = named === undefined ? [] : isOpName(named) ? [named] : [...OP_SYNONYMS[named]!]
  const fromStatus = statusOp(raw)
  if (fromStatus !== undefined) ops.unshift(fromStatus)
  return [...new Set(ops)]
}

/** What each op needs, for an error that names the op without its whole call. */
const NEEDS: Readonly<Record<OpName, string>> = {
  init: '"list"',
  start: '"task"',
  done: '"task" or "phase"',
  drop: '"task" or "phase"',
  block: '"task" or "phase"',
  unblock: '"task" or "phase"',
  rm: '"task" or "phase"',
  append: '"items", and "phase" or "after"',
  rename: '"task" or "phase", and "to"',
  view: "no fields",
}

function unknownOp(typed: string, raw: Obj, list: TodoList): string {
  const ops = likelyOps(typed, raw)
  const shown = quotePreview(typed)
  if (ops.length === 0) return `Unknown op ${shown}. Use one of: ${OP_LIST}.`
  // A call is shown only when one op is meant: a status sent beside the name, the one op the name means, or
  // the only one of its ops the call's fields fit. "update" on a task may be a done or a start; a guess
  // shown as the call to send could close the wrong task.
  const fitting = ops.filter((op) => callToSend(op, raw, list) !== undefined)
  const sure =
    statusOp(raw) !== undefined || ops.length === 1 ? ops[0] : fitting.length === 1 ? fitting[0] : undefined
  const call = sure === undefined ? undefined : callToSend(sure, raw, list)
  const first = call !== undefined && sure !== undefined ? sure : ops[0]!
  if (call !== undefined) return `Unknown op ${shown}; use "${first}": ${call}. All ops: ${OP_LIST}.`
  const rest = ops.filter((op) => op !== first)
  const others = rest.length === 0 ? "" : `; else ${rest.map((op) => `"${op}"`).join(" or ")}`
  return `Unknown op ${shown}; use "${first}" (${NEEDS[first]})${others}. All ops: ${OP_LIST}.`
}

function infer(raw: Obj, list: TodoList): Result<OpName> {
  if (present(raw.list)) return ok("init")
  if (present(raw.items)) {
    if (present(raw.phase) || present(raw.after)) return ok("append")
    if (list.length === 0) return ok("init")
    return fail(
      'No "op" given, and bare "items" only starts a list when the list is empty. To add tasks give "phase" too (append); to replace the list give "op": "init".',
    )
  }
  const fromStatus = statusOp(raw)
  const call = fromStatus === undefined ? undefined : callToSend(fromStatus, raw, list)
  if (call !== undefined)
    return fail(`No "op" given; a status is set by its op.${unrecognized(raw)} Send ${call}.`)
  return fail(
    `No "op" given. Give "op" (one of ${OP_LIST}), or use a shape that implies it: {list} starts a list, {phase, items} appends, {items} starts a list when it is empty.${unrecognized(raw)}`,
  )
}

function resolveOpName(raw: Obj, list: TodoList): Result<OpName> {
  const op = raw.op
  if (!present(op)) return infer(raw, list)
  if (typeof op !== "string")
    return fail(`"op" must be a string, one of ${OP_LIST}; got ${describeValue(op)}.`)
  const name = clean(op).toLowerCase()
  return isOpName(name) ? ok(name) : fail(unknownOp(clean(op), raw, list))
}

/** The op a raw element names or implies, for error messages; undefined when it cannot be told. */
export function opNameOf(raw: unknown, list: TodoList): OpName | undefined {
  if (!isRecord(raw)) return undefined
  const name = resolveOpName(raw, list)
  return name.ok ? name.value : undefined
}

// ---- fields -----------------------------------------------------------------------------------

/** A non-empty array of one-line task texts, trimmed. `label` names the field in errors. */
function parseItems(value: unknown, label: string, limits: Limits): Result<string[]> {
  if (!Array.isArray(value)) return fail(`${label} must be an array of strings; got ${describeValue(value)}.`)
  if (value.length === 0) return fail(`${label} is empty; give at least one task text.`)
  const texts: string[] = []
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i]
    if (typeof item !== "string")
      return fail(`${label} must be an array of strings; item ${i + 1} is ${describeValue(item)}.`)
    const text = clean(item)
    if (text === "") return fail(`${label} item ${i + 1} is empty; give each task a short description.`)
    const bad = checkText(text, "Task", limits)
    if (bad) return fail(bad)
    texts.push(text)
  }
  return ok(texts)
}

function parsePhaseName(value: string, limits: Limits): Result<string> {
  const bad = checkText(value, "Phase name", limits)
  return bad ? fail(bad) : ok(value)
}

const TASK_EXPECTED = "the exact text of one task (a string)"
const TASK_HINT = ' To act on several tasks, send "ops": [{...}, {...}].'
const PHASE_EXPECTED = "a phase name (a string)"

/** `task` and/or `phase` as a target; undefined when neither is given. */
function parseTarget(raw: Obj): Result<Target | undefined> {
  const task = optionalString(raw, "task", TASK_EXPECTED, Array.isArray(raw.task) ? TASK_HINT : "")
  if (!task.ok) return task
  const phase = optionalString(raw, "phase", PHASE_EXPECTED)
  if (!phase.ok) return phase
  if (task.value !== undefined) {
    // Both given: the task is the target, and the reducer checks it is in that phase.
    const target: ScopedTaskTarget =
      phase.value === undefined
        ? { kind: "task", text: task.value }
        : { kind: "task", text: task.value, phase: phase.value }
    return ok(target)
  }
  if (phase.value !== undefined) return ok({ kind: "phase", name: phase.value })
  return ok(undefined)
}

function unrecognized(raw: Obj): string {
  const extra = unknownKeys(raw)
  return extra.length === 0 ? "" : ` Unrecognized: ${quoteKeys(extra)}.`
}

function parseInit(raw: Obj, limits: Limits): Result<Op> {
  const hasList = present(raw.list)
  const hasItems = present(raw.items)
  if (hasList && hasItems)
    return fail('Give either "list" (phases with items) or "items" (one phase), not both.')
  if (hasItems) {
    const phase = optionalString(raw, "phase", PHASE_EXPECTED)
    if (!phase.ok) return phase
    const name = parsePhaseName(phase.value ?? DEFAULT_PHASE, limits)
    if (!name.ok) return name
    const items = parseItems(raw.items, '"items"', limits)
    if (!items.ok) return items
    return ok({ op: "init", list: [{ phase: name.value, items: items.value }] })
  }
  if (!hasList)
    return fail('init needs "list" (an array of {phase, items}) or "items" (an array of task texts).')
  const value = raw.list
  if (!Array.isArray(value))
    return fail(`"list" must be an array of {phase, items}; got ${describeValue(value)}.`)
  const specs: PhaseSpec[] = []
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i]
    const where = `"list" item ${i + 1}`
    if (!isRecord(element))
      return fail(`${where} must be an object {phase, items}; got ${describeValue(element)}.`)
    const phase = element.phase
    if (typeof phase !== "string")
      return fail(`${where}: "phase" must be ${PHASE_EXPECTED}; got ${describeValue(phase)}.`)
    if (clean(phase) === "") return fail(`${where}: "phase" is empty; give the phase a name.`)
    const name = parsePhaseName(clean(phase), limits)
    if (!name.ok) return name
    const items = parseItems(element.items, `${where}: "items"`, limits)
    if (!items.ok) return items
    specs.push({ phase: name.value, items: items.value })
  }
  return ok({ op: "init", list: specs })
}

/** An append given "task", which names an existing task and is no field of append: what to send instead. */
function appendTaskError(raw: Obj, list: TodoList): string {
  const what = 'which names an existing task; append names one only as "after"'
  if (present(raw.items))
    return `append does not use "task" (${what}): to insert after that task, give it as "after"; else leave "task" out.`
  const call = callToSend("append", raw, list)
  if (call !== undefined)
    return `append takes "items" (an array of new task texts), not "task" (${what}). Send ${call}.`
  return `append takes "items" (an array of new task texts), not "task" (${what}), and "phase" (created if missing) or "after" (a task to insert after).`
}

function parseAppend(raw: Obj, list: TodoList, limits: Limits): Result<Op> {
  if (present(raw.task)) return fail(appendTaskError(raw, list))
  const phase = optionalString(raw, "phase", PHASE_EXPECTED)
  if (!phase.ok) return phase
  const after = optionalString(raw, "after", TASK_EXPECTED)
  if (!after.ok) return after
  if (phase.value === undefined && after.value === undefined)
    return fail('append needs "phase" (created at the end if missing) or "after" (a task to insert after).')
  const items = parseItems(raw.items, '"items"', limits)
  if (!items.ok) return items
  if (phase.value === undefined) return ok({ op: "append", after: after.value, items: items.value })
  const name = parsePhaseName(phase.value, limits)
  if (!name.ok) return name
  return ok(
    after.value === undefined
      ? { op: "append", phase: name.value, items: items.value }
      : { op: "append", phase: name.value, after: after.value, items: items.value },
  )
}

const REASON_NAMES = {
  block: "Blocker reason",
  drop: "Drop reason",
  unblock: "Unblock reason",
  done: "Done reason",
  start: "Start reason",
  rm: "Removal reason",
} as const

function parseReason(raw: Obj, what: string, limits: Limits): Result<string | undefined> {
  const reason = optionalString(raw, "reason", "a one-line reason (a string)")
  if (!reason.ok || reason.value === undefined) return reason
  // A multi-line reason is folded, not rejected: it is free text and only needs to fit one line.
  const folded = foldLine(reason.value)
  const bad = checkText(folded, what, limits)
  return bad ? fail(bad) : ok(folded)
}

function parseRename(raw: Obj, target: Target | undefined, limits: Limits): Result<Op> {
  if (target === undefined)
    return fail('rename needs "task" (the exact task text) or "phase" (a phase name), and "to".')
  const to = optionalString(raw, "to", "the new text (a string)")
  if (!to.ok) return to
  if (to.value === undefined)
    return fail('rename needs "to": the new exact text of the task or the new name of the phase.')
  const bad =
    target.kind === "phase" ? checkText(to.value, "Phase name", limits) : checkText(to.value, "Task", limits)
  if (bad) return fail(bad)
  if (target.kind === "all") return fail('rename needs "task" or "phase".')
  return ok({ op: "rename", target, to: to.value })
}

/** An op on a target with the reason the call gave, if any (every such op reads one; see types.ts Op). */
function withReason(raw: Obj, op: keyof typeof REASON_NAMES, target: Target, limits: Limits): Result<Op> {
  const reason = parseReason(raw, REASON_NAMES[op], limits)
  if (!reason.ok) return reason
  const why = reason.value === undefined ? {} : { reason: reason.value }
  if (op !== "start") return ok({ op, target, ...why })
  return target.kind === "task" ? ok({ op, target, ...why }) : fail('start takes a "task".')
}

/**
 * Parses one op (an element of a batch, or the whole call) against the list it will apply to:
 * inference of a missing `op` depends on whether that list is empty.
 */
export function parseOp(raw: unknown, list: TodoList, limits: Limits = DEFAULT_LIMITS): Result<Op> {
  if (!isRecord(raw))
    return fail(`An op must be an object like {"op": "done", "task": "..."}; got ${describeValue(raw)}.`)
  if (present(raw.ops)) return fail('Batches cannot nest; "ops" belongs only at the top level of the call.')
  const name = resolveOpName(raw, list)
  if (!name.ok) return name
  const op = name.value
  switch (op) {
    case "init":
      return parseInit(raw, limits)
    case "append":
      return parseAppend(raw, list, limits)
    case "view":
      return ok({ op: "view" })
    default:
      break
  }
  const target = parseTarget(raw)
  if (!target.ok) return target
  const t = target.value
  switch (op) {
    case "start":
      if (t === undefined)
        return fail(`start needs "task": the exact text of the task to start.${unrecognized(raw)}`)
      if (t.kind !== "task")
        return fail('start takes a "task", not a "phase"; give the exact text of the task to start.')
      return withReason(raw, op, t, limits)
    case "rename":
      return parseRename(raw, t, limits)
    case "rm": {
      if (t !== undefined) return withReason(raw, op, t, limits)
      // rm with no target clears everything, so anything that looks like a meant target must stop it.
      for (const key of ["task", "phase"] as const)
        if (typeof raw[key] === "string")
          return fail(
            `"${key}" is empty. Give the exact ${key === "task" ? "task text" : "phase name"}, or leave out both "task" and "phase" to clear the whole list.`,
          )
      // Another op's fields (a rename's "to", an append's "after") may mean the model meant another op.
      const extra = Object.keys(raw).filter((key) => key !== "op" && present(raw[key]))
      if (extra.length > 0)
        return fail(
          `rm with no "task" or "phase" clears the whole list, but the call also has ${quoteKeys(extra)}. Give "task" or "phase", or send rm alone to clear everything.`,
        )
      return ok({ op, target: { kind: "all" } })
    }
    default: {
      if (t === undefined)
        return fail(`${op} needs "task" (the exact task text) or "phase" (a phase name).${unrecognized(raw)}`)
      return withReason(raw, op, t, limits)
    }
  }
}

// ---- fields a call sent that nothing read -----------------------------------------------------------

/** Why a field went unused: no op has it, it is a status (set by its op), or the op it came with does not read it. */
export type UnusedWhy = "unrecognized" | "status" | "unread"

export interface UnusedField {
  readonly key: string
  readonly why: UnusedWhy
}

/** The fields of one op, or of the call beside its "ops", that nothing read; a successful call says them. */
export interface UnusedFields {
  /** 0-based index of the op in a batch; absent for a single op and for the call beside its "ops". */
  readonly at?: number
  /** What the op is, as the result names it ("done", `init with "list"`); absent beside "ops". */
  readonly op?: string
  readonly fields: readonly UnusedField[]
}

function classify(key: string): UnusedField {
  return { key, why: key === "status" ? "status" : KNOWN.has(key) ? "unread" : "unrecognized" }
}

/**
 * The fields of `raw` that `op`, parsed from it, does not read; undefined when there are none. Schema filler
 * (null, "", []) is no field (see present), so a normal call has none.
 */
export function unusedFields(raw: unknown, op: Op, at?: number): UnusedFields | undefined {
  if (!isRecord(raw)) return undefined
  const withList = op.op === "init" && present(raw.list)
  const read: readonly string[] = withList ? ["list"] : FIELDS_OF[op.op]
  const keys = Object.keys(raw).filter((key) => key !== "op" && present(raw[key]) && !read.includes(key))
  if (keys.length === 0) return undefined
  const fields = keys.map(classify)
  const name = withList ? 'init with "list"' : op.op
  return at === undefined ? { op: name, fields } : { at, op: name, fields }
}

/** The fields beside a batch's "ops" that nothing read (a known field there is an error: see splitCall). */
export function unusedBesideOps(raw: unknown): UnusedFields | undefined {
  if (!isRecord(raw)) return undefined
  const keys = unknownKeys(raw)
  return keys.length === 0 ? undefined : { fields: keys.map(classify) }
}

/** "op 3 (done) failed: …": how a batch names the op that stopped it (1-based, as a reader counts). */
export function batchError(index: number, name: OpName | undefined, error: string): string {
  return `op ${index + 1}${name ? ` (${name})` : ""} failed: ${error}`
}

// ---- stored snapshots -------------------------------------------------------------------------

function isStatus(value: unknown): value is TaskStatus {
  return typeof value === "string" && (STATUSES as readonly string[]).includes(value)
}

function got(value: unknown): string {
  return typeof value === "string" && value.trim() !== "" ? `${quotePreview(value)}` : describeValue(value)
}

/**
 * Parses a stored list: `[{name, tasks: [{text, status, blocker?}]}]`. Texts are trimmed (a hand-edited
 * file may carry stray spaces that would make a task unaddressable), unknown keys dropped, then checkList runs.
 * The list comes back in the normal form: a record stored before every change ended in it reads as if it
 * had, and nothing is written until the list really changes.
 */
export function parseSnapshot(raw: unknown, limits: Limits = DEFAULT_LIMITS): Result<TodoList> {
  if (!Array.isArray(raw))
    return fail(`The stored list must be an array of phases; got ${describeValue(raw)}.`)
  const phases: Phase[] = []
  for (let p = 0; p < raw.length; p++) {
    const phase: unknown = raw[p]
    const where = `Phase ${p + 1}`
    if (!isRecord(phase))
      return fail(`${where} must be an object {name, tasks}; got ${describeValue(phase)}.`)
    if (typeof phase.name !== "string")
      return fail(`${where}: "name" must be a string; got ${describeValue(phase.name)}.`)
    if (!Array.isArray(phase.tasks))
      return fail(`${where}: "tasks" must be an array of tasks; got ${describeValue(phase.tasks)}.`)
    const tasks: Task[] = []
    for (let t = 0; t < phase.tasks.length; t++) {
      const task: unknown = phase.tasks[t]
      const at = `${where}, task ${t + 1}`
      if (!isRecord(task))
        return fail(`${at} must be an object {text, status, blocker?}; got ${describeValue(task)}.`)
      if (typeof task.text !== "string")
        return fail(`${at}: "text" must be a string; got ${describeValue(task.text)}.`)
      if (!isStatus(task.status))
        return fail(`${at}: "status" must be one of ${STATUSES.join(", ")}; got ${got(task.status)}.`)
      const blocker = task.blocker
      if (blocker !== undefined && blocker !== null && typeof blocker !== "string")
        return fail(`${at}: "blocker" must be a string; got ${describeValue(blocker)}.`)
      const reason = typeof blocker === "string" ? clean(blocker) : ""
      tasks.push(
        reason === ""
          ? { text: clean(task.text), status: task.status }
          : { text: clean(task.text), status: task.status, blocker: reason },
      )
    }
    phases.push({ name: clean(phase.name), tasks })
  }
  const bad = checkList(phases, limits)
  return bad ? fail(bad) : ok(normalize(phases).list)
}
