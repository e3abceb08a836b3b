// Pure reducers, one per op: each takes a list and returns a new list plus the changes it made.
// `normalize` then restores "one task in progress whenever a task is pending"; execute runs it after every op.

import type { Located } from "./queries.ts"
import {
  checkList,
  checkText,
  clean,
  counts,
  eachTask,
  findPhase,
  findTask,
  HAS_REASON,
  looksLikeId,
  nextPendingTask,
  taskCount,
} from "./queries.ts"
import { fail, ok, type Result } from "./result.ts"
import type {
  Change,
  Limits,
  Op,
  Phase,
  PhaseSpec,
  ScopedTaskTarget,
  Target,
  Task,
  TaskStatus,
  TodoList,
} from "./types.ts"
import { CLOSED, DEFAULT_LIMITS, OPEN } from "./types.ts"
import { closeName, foldLine, neutralize, quotePreview, STATUS_WORDS, unquote } from "./words.ts"

export interface Applied {
  readonly list: TodoList
  readonly changes: Change[]
}

function q(text: string): string {
  return quotePreview(text)
}

function quoteAll(texts: readonly string[]): string {
  return texts.map(q).join(", ")
}

/** The first `shown` texts quoted, then how many more there are, so a cut list does not read as whole. */
function quoteSome(texts: readonly string[], shown: number): string {
  const head = quoteAll(texts.slice(0, shown))
  return texts.length > shown ? `${head}, …and ${texts.length - shown} more` : head
}

// ---- addressing -------------------------------------------------------------------------------

/** Tasks the model may have meant: prefix, then substring matches (case-insensitive, up to three), else the open tasks. */
function candidates(list: TodoList, wanted: string): { texts: string[]; matched: boolean } {
  const lower = wanted.toLowerCase()
  const all = [...eachTask(list)].map((hit) => hit.task)
  const rank = (task: Task): number => {
    const t = task.text.toLowerCase()
    if (t === lower) return 0
    if (t.startsWith(lower) || lower.startsWith(t)) return 1
    if (t.includes(lower) || lower.includes(t)) return 2
    return 3
  }
  const matches = all
    .map((task, i) => ({ task, i, r: rank(task) }))
    .filter((m) => m.r < 3)
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((m) => m.task.text)
  if (matches.length > 0) return { texts: matches.slice(0, 3), matched: true }
  const open = all.filter((task) => OPEN.has(task.status)).map((task) => task.text)
  return { texts: open, matched: false }
}

function unknownTask(list: TodoList, text: string): string {
  const wanted = clean(text)
  if (taskCount(list) === 0) return `No task ${q(wanted)}; the list is empty.`
  const { texts, matched } = candidates(list, wanted)
  const hint =
    texts.length === 0
      ? ""
      : matched
        ? ` Closest: ${quoteAll(texts)}.`
        : ` Open tasks: ${quoteSome(texts, 3)}.`
  if (looksLikeId(wanted))
    return `Tasks have no ids or numbers; address a task by its exact text, not ${q(wanted)}.${hint}`
  return `No task ${q(wanted)}. Tasks are addressed by their exact text.${hint}`
}

function unknownPhase(list: TodoList, name: string): string {
  const wanted = clean(name)
  if (list.length === 0) return `No phase ${q(wanted)}; the list is empty.`
  const lower = wanted.toLowerCase()
  const close = (p: Phase) => p.name.toLowerCase().includes(lower) || lower.includes(p.name.toLowerCase())
  const ordered = [...list.filter(close), ...list.filter((p) => !close(p))].map((p) => p.name)
  const shown = quoteSome(ordered, 5)
  if (looksLikeId(wanted))
    return `Phases have no ids or numbers; address a phase by its exact name, not ${q(wanted)}. Phases: ${shown}.`
  return `No phase ${q(wanted)}. Phases are addressed by their exact name: ${shown}.`
}

function resolveTask(list: TodoList, target: ScopedTaskTarget): Result<Located> {
  // A model may paste a quoted task with its escapes (see quote()); the literal's text is what it meant.
  const unquoted = unquote(clean(target.text))
  const hit = findTask(list, target.text) ?? (unquoted === undefined ? undefined : findTask(list, unquoted))
  const phase = target.phase === undefined ? "" : clean(target.phase)
  if (!hit) return fail(unknownTask(list, target.text))
  const actual = list[hit.phaseIndex]!.name
  if (phase !== "" && actual !== phase)
    return fail(
      `Task ${q(hit.task.text)} is in phase ${q(actual)}, not ${q(phase)}; leave out "phase" or give ${q(actual)}.`,
    )
  return ok(hit)
}

function resolvePhase(list: TodoList, name: string): Result<number> {
  const index = findPhase(list, name)
  return index < 0 ? fail(unknownPhase(list, name)) : ok(index)
}

/** The tasks a phase or "all" target covers, in list order. */
function tasksOf(list: TodoList, target: Exclude<Target, { kind: "task" }>): Result<readonly Task[]> {
  if (target.kind === "all") return ok([...eachTask(list)].map((hit) => hit.task))
  const index = resolvePhase(list, target.name)
  return index.ok ? ok(list[index.value]!.tasks) : index
}

function scopeName(target: Exclude<Target, { kind: "task" }>): string {
  return target.kind === "phase" ? `Phase ${q(clean(target.name))} has` : "The list has"
}

function phaseNames(list: TodoList): string[] {
  return list.map((phase) => phase.name)
}

// ---- building new lists -----------------------------------------------------------------------

interface Move {
  readonly task: Task
  readonly to: TaskStatus
  readonly blocker?: string
  readonly reason?: string
  readonly wasBlockedFor?: string
  readonly auto?: "promoted" | "demoted"
}

function withStatus(task: Task, status: TaskStatus, blocker?: string): Task {
  // The reason invariant lives here: only a blocked or dropped task keeps one.
  return HAS_REASON.has(status) && blocker !== undefined
    ? { text: task.text, status, blocker }
    : { text: task.text, status }
}

/** Applies status moves; phases without a moved task are shared with the input, which is never touched. */
function move(list: TodoList, moves: readonly Move[]): Applied {
  if (moves.length === 0) return { list, changes: [] }
  const updates = new Map<string, Task>()
  const changes: Change[] = []
  for (const m of moves) {
    updates.set(m.task.text, withStatus(m.task, m.to, m.blocker))
    changes.push({
      kind: "status",
      task: m.task.text,
      from: m.task.status,
      to: m.to,
      ...(m.auto ? { auto: m.auto } : {}),
      ...(m.reason !== undefined ? { reason: m.reason } : {}),
      ...(m.wasBlockedFor !== undefined ? { wasBlockedFor: m.wasBlockedFor } : {}),
    })
  }
  const next = list.map((phase) =>
    phase.tasks.some((task) => updates.has(task.text))
      ? { name: phase.name, tasks: phase.tasks.map((task) => updates.get(task.text) ?? task) }
      : phase,
  )
  return { list: next, changes }
}

/** What already held; a reason the op gave is still said (`"A" is already done ("merged").`). */
function unchanged(list: TodoList, task: Task, reason?: string): Applied {
  const change: Change =
    reason === undefined
      ? { kind: "unchanged", task: task.text, status: task.status }
      : { kind: "unchanged", task: task.text, status: task.status, reason }
  return { list, changes: [change] }
}

/** Reasons are one line; a blank reason is no reason. */
function oneLine(reason: string | undefined): string | undefined {
  const folded = reason === undefined ? "" : foldLine(reason)
  return folded === "" ? undefined : folded
}

/** A reason as an op stores or reports it: one line, checked as `what` ("Drop reason"); undefined when blank. */
function checkedReason(raw: string | undefined, what: string, limits: Limits): Result<string | undefined> {
  const reason = oneLine(raw)
  const bad = reason === undefined ? undefined : checkText(reason, what, limits)
  return bad ? fail(bad) : ok(reason)
}

// ---- reducers ---------------------------------------------------------------------------------

function init(list: TodoList, specs: readonly PhaseSpec[], limits: Limits): Result<Applied> {
  const phases: Phase[] = specs.map((spec) => ({
    name: clean(spec.phase),
    tasks: spec.items.map((item): Task => ({ text: clean(item), status: "pending" })),
  }))
  if (taskCount(phases) === 0) return fail("init needs at least one task.")
  for (const phase of phases) {
    const badName = checkText(phase.name, "Phase name", limits)
    if (badName) return fail(badName)
    for (const task of phase.tasks) {
      const badTask = checkText(task.text, "Task", limits)
      if (badTask) return fail(badTask)
    }
  }
  const bad = checkList(phases, limits)
  if (bad) return fail(bad)
  const kept = new Set([...eachTask(phases)].map((hit) => hit.task.text))
  const lost = [...eachTask(list)]
    .map((hit) => hit.task)
    .filter((t) => OPEN.has(t.status) && !kept.has(t.text))
  const running = lost.find((t) => t.status === "in_progress")
  const discarded = running ? [running, ...lost.filter((t) => t !== running)] : lost
  // A task the old list had settled comes back pending: init's items are new tasks, whatever their text.
  // Keeping the old status by text would hide work a new plan means to redo; saying so costs one op to undo.
  const settled = [...eachTask(list)]
    .map((hit) => hit.task)
    .filter((t) => kept.has(t.text) && (CLOSED.has(t.status) || t.status === "blocked"))
    .map((t) =>
      t.blocker === undefined
        ? { text: t.text, status: t.status }
        : { text: t.text, status: t.status, reason: t.blocker },
    )
  const change: Change = {
    kind: "init",
    phases: phases.length,
    tasks: taskCount(phases),
    ...(list.length > 0 ? { replaced: counts(list) } : {}),
    ...(discarded.length > 0 ? { discarded: discarded.map((t) => t.text) } : {}),
    ...(running ? { discardedRunning: running.text } : {}),
    ...(settled.length > 0 ? { settledBefore: settled } : {}),
  }
  return ok({ list: phases, changes: [change] })
}

function start(
  list: TodoList,
  target: ScopedTaskTarget,
  rawReason: string | undefined,
  limits: Limits,
): Result<Applied> {
  const checked = checkedReason(rawReason, "Start reason", limits)
  if (!checked.ok) return checked
  const reason = checked.value
  const hit = resolveTask(list, target)
  if (!hit.ok) return hit
  const task = hit.value.task
  if (task.status === "in_progress") return ok(unchanged(list, task, reason))
  const moves: Move[] = [
    {
      task,
      to: "in_progress",
      ...(reason !== undefined ? { reason } : {}),
      ...(task.status === "blocked" && task.blocker !== undefined ? { wasBlockedFor: task.blocker } : {}),
    },
  ]
  for (const other of eachTask(list))
    if (other.task.status === "in_progress") moves.push({ task: other.task, to: "pending", auto: "demoted" })
  return ok(move(list, moves))
}

function done(
  list: TodoList,
  target: Target,
  rawReason: string | undefined,
  limits: Limits,
): Result<Applied> {
  // The reason is reported in the change, as unblock's is; a done task keeps none.
  const checked = checkedReason(rawReason, "Done reason", limits)
  if (!checked.ok) return checked
  const reason = checked.value
  if (target.kind === "task") {
    const hit = resolveTask(list, target)
    if (!hit.ok) return hit
    const task = hit.value.task
    if (task.status === "completed") return ok(unchanged(list, task, reason))
    // An explicit done wins over any status, even dropped: the model says the work happened.
    return ok(
      move(list, [reason === undefined ? { task, to: "completed" } : { task, to: "completed", reason }]),
    )
  }
  return closeOpen(list, target, reason)
}

function drop(
  list: TodoList,
  target: Target,
  rawReason: string | undefined,
  limits: Limits,
): Result<Applied> {
  const checked = checkedReason(rawReason, "Drop reason", limits)
  if (!checked.ok) return checked
  const reason = checked.value
  const moveFor = (task: Task): Move =>
    reason === undefined ? { task, to: "abandoned" } : { task, to: "abandoned", blocker: reason, reason }
  if (target.kind === "task") {
    const hit = resolveTask(list, target)
    if (!hit.ok) return hit
    const task = hit.value.task
    if (task.status === "completed") return fail(`Task ${q(task.text)} is already done; use rm to remove it.`)
    // A dropped task keeps its reason unless a new one is given.
    if (task.status === "abandoned" && (reason === undefined || reason === task.blocker))
      return ok(unchanged(list, task))
    return ok(move(list, [moveFor(task)]))
  }
  const tasks = tasksOf(list, target)
  if (!tasks.ok) return tasks
  return ok(move(list, tasks.value.filter((task) => OPEN.has(task.status)).map(moveFor)))
}

/** done on a phase or the whole list: every open task there is completed; closed tasks stay as they are. */
function closeOpen(
  list: TodoList,
  target: Exclude<Target, { kind: "task" }>,
  reason: string | undefined,
): Result<Applied> {
  const tasks = tasksOf(list, target)
  if (!tasks.ok) return tasks
  return ok(
    move(
      list,
      tasks.value
        .filter((task) => OPEN.has(task.status))
        .map(
          (task): Move =>
            reason === undefined ? { task, to: "completed" } : { task, to: "completed", reason },
        ),
    ),
  )
}

const BLOCK_A_WAIT = "to record a wait, append a task for the wait and block that."
/** A batch shown in an error is left out when longer: the error must stay short. */
const SHOWN_BATCH_MAX = 240

/** Why a done or dropped task cannot be blocked, and the batch that reopens it (start) and blocks it. */
function blockClosed(task: Task, reason: string | undefined): string {
  const blockOp =
    reason === undefined ? { op: "block", task: task.text } : { op: "block", task: task.text, reason }
  const batch = neutralize(JSON.stringify({ ops: [{ op: "start", task: task.text }, blockOp] }))
  const head = `Task ${q(task.text)} is ${STATUS_WORDS[task.status]}; only open tasks can be blocked.`
  const reopen =
    batch.length <= SHOWN_BATCH_MAX
      ? ` To reopen and block it, send ${batch}; or`
      : " Start it again first, or"
  return `${head}${reopen} ${BLOCK_A_WAIT}`
}

function block(
  list: TodoList,
  target: Target,
  rawReason: string | undefined,
  limits: Limits,
): Result<Applied> {
  const checked = checkedReason(rawReason, "Blocker reason", limits)
  if (!checked.ok) return checked
  const reason = checked.value
  // Re-blocking keeps the old reason unless a new one is given.
  const moveFor = (task: Task): Move | undefined => {
    if (task.status === "blocked" && (reason === undefined || reason === task.blocker)) return undefined
    return reason === undefined ? { task, to: "blocked" } : { task, to: "blocked", blocker: reason, reason }
  }
  if (target.kind === "task") {
    const hit = resolveTask(list, target)
    if (!hit.ok) return hit
    const task = hit.value.task
    if (CLOSED.has(task.status)) return fail(blockClosed(task, reason))
    const m = moveFor(task)
    return ok(m ? move(list, [m]) : unchanged(list, task))
  }
  const tasks = tasksOf(list, target)
  if (!tasks.ok) return tasks
  const open = tasks.value.filter((task) => OPEN.has(task.status))
  if (open.length === 0) return fail(`${scopeName(target)} no open tasks to block; ${BLOCK_A_WAIT}`)
  return ok(
    move(
      list,
      open.map(moveFor).filter((m): m is Move => m !== undefined),
    ),
  )
}

function unblock(
  list: TodoList,
  target: Target,
  rawReason: string | undefined,
  limits: Limits,
): Result<Applied> {
  // The reason is reported in the change, as block's and drop's are; a pending task keeps none.
  const checked = checkedReason(rawReason, "Unblock reason", limits)
  if (!checked.ok) return checked
  const reason = checked.value
  const moveFor = (task: Task): Move =>
    reason === undefined ? { task, to: "pending" } : { task, to: "pending", reason }
  if (target.kind === "task") {
    const hit = resolveTask(list, target)
    if (!hit.ok) return hit
    const task = hit.value.task
    if (task.status !== "blocked")
      return fail(`Task ${q(task.text)} is not blocked; it is ${STATUS_WORDS[task.status]}.`)
    return ok(move(list, [moveFor(task)]))
  }
  const tasks = tasksOf(list, target)
  if (!tasks.ok) return tasks
  const blocked = tasks.value.filter((task) => task.status === "blocked")
  if (blocked.length === 0) return fail(`${scopeName(target)} no blocked tasks.`)
  return ok(move(list, blocked.map(moveFor)))
}

function rm(list: TodoList, target: Target, rawReason: string | undefined, limits: Limits): Result<Applied> {
  // Nothing keeps a removed task's reason; the result reports it with what was removed.
  const checked = checkedReason(rawReason, "Removal reason", limits)
  if (!checked.ok) return checked
  const why = checked.value === undefined ? {} : { reason: checked.value }
  if (target.kind === "all") {
    const tasks = [...eachTask(list)].map((hit) => hit.task.text)
    return ok({ list: [], changes: [{ kind: "removed", tasks, phases: list.map((p) => p.name), ...why }] })
  }
  if (target.kind === "phase") {
    const index = resolvePhase(list, target.name)
    if (!index.ok) return index
    const phase = list[index.value]!
    return ok({
      list: list.filter((_, i) => i !== index.value),
      changes: [{ kind: "removed", tasks: phase.tasks.map((t) => t.text), phases: [phase.name], ...why }],
    })
  }
  const hit = resolveTask(list, target)
  if (!hit.ok) return hit
  const { phaseIndex, taskIndex, task } = hit.value
  // The phase stays even when it empties: the model may append to it next.
  const next = list.map((phase, p) =>
    p === phaseIndex ? { name: phase.name, tasks: phase.tasks.filter((_, t) => t !== taskIndex) } : phase,
  )
  return ok({ list: next, changes: [{ kind: "removed", tasks: [task.text], phases: [], ...why }] })
}

function append(list: TodoList, op: Extract<Op, { op: "append" }>, limits: Limits): Result<Applied> {
  if (op.items.length === 0) return fail("append needs at least one task text in items.")
  let name: string
  let at: number | undefined
  if (op.after !== undefined) {
    // `after` decides the place; a `phase` beside it only checks that it agrees.
    const hit = resolveTask(list, { kind: "task", text: op.after })
    if (!hit.ok) return hit
    name = list[hit.value.phaseIndex]!.name
    const said = clean(op.phase ?? "")
    if (said !== "" && said !== name)
      return fail(
        `Task ${q(hit.value.task.text)} is in phase ${q(name)}, not ${q(said)}. Leave out "phase" to insert after the task, or "after" to add at the end of ${q(said)}.`,
      )
    at = hit.value.taskIndex + 1
  } else {
    name = clean(op.phase ?? "")
    const badName = checkText(name, "Phase name", limits)
    if (badName) return fail(badName)
  }
  const texts = op.items.map(clean)
  const seen = new Set<string>()
  for (const text of texts) {
    const bad = checkText(text, "Task", limits)
    if (bad) return fail(bad)
    if (seen.has(text)) return fail(`Task ${q(text)} appears twice in items; task texts must be unique.`)
    seen.add(text)
    const existing = findTask(list, text)
    if (existing)
      return fail(
        `Task ${q(text)} already exists (phase ${q(list[existing.phaseIndex]!.name)}, ${STATUS_WORDS[existing.task.status]}); task texts must be unique.`,
      )
  }
  const added = texts.map((text): Task => ({ text, status: "pending" }))
  const index = findPhase(list, name)
  const insert = (tasks: readonly Task[]): Task[] =>
    at === undefined ? [...tasks, ...added] : [...tasks.slice(0, at), ...added, ...tasks.slice(at)]
  const next: Phase[] =
    index < 0
      ? [...list, { name, tasks: added }]
      : list.map((phase, p) => (p === index ? { name: phase.name, tasks: insert(phase.tasks) } : phase))
  const bad = checkList(next, limits)
  if (bad) return fail(bad)
  // A new phase whose name is close to an existing one may be a stale or mistyped name: the result says so.
  const close = index < 0 ? closeName(name, phaseNames(list)) : undefined
  const change: Change = {
    kind: "added",
    phase: name,
    tasks: texts,
    newPhase: index < 0,
    ...(op.after !== undefined && at !== undefined ? { after: list[index]!.tasks[at - 1]!.text } : {}),
    ...(close !== undefined ? { closeTo: close } : {}),
  }
  return ok({ list: next, changes: [change] })
}

function rename(
  list: TodoList,
  target: Exclude<Target, { kind: "all" }>,
  rawTo: string,
  limits: Limits,
): Result<Applied> {
  const to = clean(rawTo)
  if (target.kind === "phase") {
    const index = resolvePhase(list, target.name)
    if (!index.ok) return index
    const phase = list[index.value]!
    const bad = checkText(to, "Phase name", limits)
    if (bad) return fail(bad)
    if (to === phase.name) return ok({ list, changes: [] })
    if (findPhase(list, to) >= 0)
      return fail(`Phase ${q(to)} already exists; give a name no other phase has, or rm one of the two.`)
    return ok({
      list: list.map((p, i) => (i === index.value ? { name: to, tasks: p.tasks } : p)),
      changes: [{ kind: "renamed", what: "phase", from: phase.name, to }],
    })
  }
  const hit = resolveTask(list, target)
  if (!hit.ok) return hit
  const { phaseIndex, taskIndex, task } = hit.value
  const bad = checkText(to, "Task", limits)
  if (bad) return fail(bad)
  if (to === task.text) return ok({ list, changes: [] })
  const existing = findTask(list, to)
  if (existing)
    return fail(
      `Task ${q(to)} already exists (phase ${q(list[existing.phaseIndex]!.name)}, ${STATUS_WORDS[existing.task.status]}); give a text no other task has, or rm one of the two.`,
    )
  const renamed: Task =
    task.blocker === undefined
      ? { text: to, status: task.status }
      : { text: to, status: task.status, blocker: task.blocker }
  const next = list.map((phase, p) =>
    p === phaseIndex
      ? { name: phase.name, tasks: phase.tasks.map((t, i) => (i === taskIndex ? renamed : t)) }
      : phase,
  )
  return ok({ list: next, changes: [{ kind: "renamed", what: "task", from: task.text, to }] })
}

/**
 * Applies one op to a list without normalizing (execute normalizes after each op).
 * Never mutates `list`; on failure nothing is returned but the reason.
 */
export function applyOp(list: TodoList, op: Op, limits: Limits = DEFAULT_LIMITS): Result<Applied> {
  switch (op.op) {
    case "init":
      return init(list, op.list, limits)
    case "start":
      // The type already says so; the check guards plain-JS callers building ops by hand.
      if (op.target.kind !== "task") return fail('start takes a "task", not a phase or the whole list.')
      return start(list, op.target, op.reason, limits)
    case "done":
      return done(list, op.target, op.reason, limits)
    case "drop":
      return drop(list, op.target, op.reason, limits)
    case "block":
      return block(list, op.target, op.reason, limits)
    case "unblock":
      return unblock(list, op.target, op.reason, limits)
    case "rm":
      return rm(list, op.target, op.reason, limits)
    case "append":
      return append(list, op, limits)
    case "rename":
      return rename(list, op.target, op.to, limits)
    case "view":
      return ok({ list, changes: [] })
  }
}

/**
 * Keeps the focus rule: if several tasks are in progress the first keeps going and the rest go back to
 * pending; if none is, the earliest pending task starts. Blocked and closed tasks are never touched.
 */
export function normalize(list: TodoList): Applied {
  const running = [...eachTask(list)].filter((hit) => hit.task.status === "in_progress")
  if (running.length > 1)
    return move(
      list,
      running.slice(1).map((hit) => ({ task: hit.task, to: "pending" as const, auto: "demoted" as const })),
    )
  if (running.length === 1) return { list, changes: [] }
  const next = nextPendingTask(list)
  return next ? move(list, [{ task: next.task, to: "in_progress", auto: "promoted" }]) : { list, changes: [] }
}
