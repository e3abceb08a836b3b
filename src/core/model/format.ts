// The words the model reads: tool results, the compact whole-list view, and the one-line summary.
// Every result is paid for on every call, so it is kept short: what changed, what is in progress, what is next.
// Every task text, phase name and reason in them is quoted (words.ts quote), so none can speak for itself.

import type { ExecuteResult } from "../list/execute.ts"
import type { UnusedFields } from "../list/parse.ts"
import { counts, countTasks, inProgressTask, nextPendingTask } from "../list/queries.ts"
import {
  type Change,
  type Op,
  type Settled,
  STATUSES,
  type Task,
  type TaskStatus,
  type TodoList,
} from "../list/types.ts"
import {
  neutralize,
  phaseTallyText,
  progressText,
  quote,
  quoteKeys,
  STATUS_BOXES,
  STATUS_WORDS,
} from "../list/words.ts"

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`
}

/** Names up to three tasks; a phase-wide op on many tasks would otherwise flood the result. */
function names(texts: readonly string[]): string {
  const shown = texts.slice(0, 3).map(quote).join(", ")
  return texts.length > 3 ? `${shown} and ${texts.length - 3} more` : shown
}

export function formatTask(task: Task): string {
  const line = `${STATUS_BOXES[task.status]} ${quote(task.text)}`
  return task.blocker !== undefined ? `${line} (${STATUS_WORDS[task.status]}: ${quote(task.blocker)})` : line
}

/** "Next: "X". 3/12 done, 1 blocked · 1 dropped." The count is words.ts's one rule: dropped tasks apart. */
export function summaryLine(list: TodoList): string {
  const c = counts(list)
  if (c.total === 0) return list.length === 0 ? "The list is empty." : "The list has no tasks."
  if (c.closed === c.total) return `Nothing open: ${progressText(c)}.`
  const next = nextPendingTask(list)
  let tail = progressText(c)
  // Only blocked tasks left open: say so, or the model may think something is still running.
  if (c.inProgress === 0 && c.pending === 0) tail += ", none in progress"
  return next ? `Next: ${quote(next.task.text)}. ${tail}.` : `${tail}.`
}

/** The phases and their tasks, one line each, without the summary line. */
export function formatPhases(list: TodoList): string {
  if (list.length === 0) return "The list is empty."
  const lines: string[] = []
  for (const phase of list) {
    const c = countTasks(phase.tasks)
    lines.push(`${quote(phase.name)} (${phaseTallyText(c)})`)
    for (const task of phase.tasks) lines.push(`  ${formatTask(task)}`)
  }
  return lines.join("\n")
}

/**
 * What each mark the list shows means, in status order, for the marks a checklist does not say itself:
 * "Marks: [>] in progress, [!] blocked." `[ ]` and `[x]` go without a legend (every checklist uses them), so a
 * list of only those carries none.
 */
export function marksLegend(list: TodoList): string | undefined {
  const present = new Set(list.flatMap((phase) => phase.tasks.map((task) => task.status)))
  const marks = STATUSES.filter(
    (status) => present.has(status) && status !== "pending" && status !== "completed",
  ).map((status) => `${STATUS_BOXES[status]} ${STATUS_WORDS[status]}`)
  return marks.length === 0 ? undefined : `Marks: ${marks.join(", ")}.`
}

/** The whole list, one line per phase and per task, then the summary line. */
export function formatList(list: TodoList): string {
  return list.length === 0 ? formatPhases(list) : `${formatPhases(list)}\n${summaryLine(list)}`
}

type StatusChange = Extract<Change, { kind: "status" }>

/** A task's net move over a whole call: a batch that finishes three tasks reads as one "Done" sentence. */
interface Net {
  readonly order: number
  readonly task: string
  readonly from: TaskStatus
  to: TaskStatus
  last: StatusChange
  /** Why an unblock in this call ended the wait, when it said. */
  unblockReason?: string
}

interface Group {
  readonly order: number
  readonly key: string
  readonly tasks: string[]
  /** The change that decides the wording (reason, auto). */
  readonly sample: Net
}

/** Which sentence a net move belongs to; undefined when it nets out to nothing. */
function groupKey(net: Net): string | undefined {
  const { from, to, last } = net
  if (from === to) {
    if (last.from !== to || last.to !== to) return undefined
    // A new reason on a task already blocked or dropped.
    if (to === "blocked") return `still:${last.reason ?? ""}`
    return to === "abandoned" && last.reason !== undefined ? `dropped:${last.reason}` : undefined
  }
  if (to === "completed") return `done:${last.reason ?? ""}`
  if (to === "abandoned") return `dropped:${last.reason ?? ""}`
  if (to === "blocked") return `blocked:${last.reason ?? ""}`
  if (to === "pending")
    return from === "in_progress"
      ? "demoted"
      : from === "blocked"
        ? `unblocked:${last.reason ?? ""}`
        : "reopened"
  // Starts are one task each, so each gets its own sentence.
  return `start:${net.task}`
}

function renderGroup(group: Group): string {
  const list = names(group.tasks)
  const { from, last } = group.sample
  const reason = last.reason ? quote(last.reason) : undefined
  if (group.key.startsWith("done:")) return reason ? `Done ${list} (${reason}).` : `Done ${list}.`
  if (group.key.startsWith("dropped:")) return reason ? `Dropped ${list} (${reason}).` : `Dropped ${list}.`
  if (group.key.startsWith("unblocked:"))
    return reason ? `Unblocked ${list} (${reason}).` : `Unblocked ${list}.`
  if (group.key === "reopened") return `Reopened ${list} as pending.`
  if (group.key === "demoted") return `${list} moved back to pending.`
  if (group.key.startsWith("still:")) return `${list} still blocked: ${reason}.`
  if (group.key.startsWith("blocked:")) return reason ? `Blocked ${list} (${reason}).` : `Blocked ${list}.`
  // A start's own reason follows what the task was: `Started "C" (was blocked: "spec"; "it arrived").`
  const said = (was: string) => (reason ? `${was}; ${reason}` : was)
  if (from === "completed" || from === "abandoned")
    return `Reopened ${list} (${said(`was ${STATUS_WORDS[from]}`)}).`
  if (from === "blocked") {
    if (last.auto === "promoted") {
      const why = group.sample.unblockReason
      return why === undefined
        ? `Unblocked and started ${list}.`
        : `Unblocked and started ${list} (${quote(why)}).`
    }
    const blocker = last.wasBlockedFor === undefined ? "" : `: ${quote(last.wasBlockedFor)}`
    return `Started ${list} (${said(`was blocked${blocker}`)}).`
  }
  return reason ? `Started ${list} (${reason}).` : `Started ${list}.`
}

/**
 * "Reopened by init: "A" (was done); if it still is, send {"op":"done","task":"A"}." init makes every task
 * pending, so it says which ones the old list had settled, and the call that settles them again.
 */
function settledText(settled: readonly Settled[]): string {
  const word = (s: Settled) =>
    s.status === "blocked" && s.reason !== undefined
      ? `was blocked: ${quote(s.reason)}`
      : `was ${STATUS_WORDS[s.status]}`
  const shown = settled
    .slice(0, 3)
    .map((s) => `${quote(s.text)} (${word(s)})`)
    .join(", ")
  const more = settled.length > 3 ? ` and ${settled.length - 3} more` : ""
  const op = (s: Settled) => ({
    op: s.status === "completed" ? "done" : s.status === "blocked" ? "block" : "drop",
    task: s.text,
    ...(s.reason === undefined ? {} : { reason: s.reason }),
  })
  const ops = settled.map(op)
  const call = neutralize(JSON.stringify(ops.length === 1 ? ops[0] : { ops }))
  const still = settled.length === 1 ? "if it still is" : "if they still are"
  const send =
    call.length <= SHOWN_CALL_MAX ? `send ${call}` : "send done, drop or block for each in one batch"
  return `Reopened by init: ${shown}${more}; ${still}, ${send}.`
}

/** "Discarded 2 open tasks: "A" (was in progress), "B"." The model has no undo, so init says what it let go. */
function discardedText(texts: readonly string[], running: string | undefined): string {
  const shown = texts
    .slice(0, 3)
    .map((text) => (text === running ? `${quote(text)} (was in progress)` : quote(text)))
    .join(", ")
  const more = texts.length > 3 ? ` and ${texts.length - 3} more` : ""
  return `Discarded ${plural(texts.length, "open task")}: ${shown}${more}; append any still needed.`
}

/** A call shown in a result is left out when longer: the result must stay short. */
const SHOWN_CALL_MAX = 300

/**
 * What a new phase whose name is close to an existing one says: the existing phase, and the batch that moves
 * the new phase's tasks there (from the list the call left), if that was meant.
 */
function closeNameText(created: string, existing: string, list: TodoList): string {
  const head = `Phase ${quote(existing)} has a close name;`
  const tasks = list.find((phase) => phase.name === created)?.tasks.map((task) => task.text)
  const move =
    tasks !== undefined && tasks.length > 0 && list.some((phase) => phase.name === existing)
      ? neutralize(
          JSON.stringify({
            ops: [
              { op: "rm", phase: created },
              { op: "append", phase: existing, items: tasks },
            ],
          }),
        )
      : undefined
  if (move !== undefined && move.length <= SHOWN_CALL_MAX) return `${head} if you meant it, send ${move}.`
  return `${head} if you meant it, rm phase ${quote(created)} and append its tasks to ${quote(existing)} in one batch.`
}

function describeOther(change: Exclude<Change, StatusChange>, list: TodoList): string | undefined {
  switch (change.kind) {
    case "init": {
      const r = change.replaced
      if (!r) return undefined
      const replaced = `Replaced a list of ${plural(r.phases, "phase")}, ${plural(r.total, "task")} (${progressText(r)}).`
      const discarded = change.discarded ? ` ${discardedText(change.discarded, change.discardedRunning)}` : ""
      const settled = change.settledBefore ? ` ${settledText(change.settledBefore)}` : ""
      return `${replaced}${discarded}${settled}`
    }
    case "added": {
      if (change.after !== undefined) return `Added ${names(change.tasks)} after ${quote(change.after)}.`
      // A new phase goes last in the list; an existing one takes the tasks at its end.
      if (!change.newPhase) return `Added ${names(change.tasks)} at the end of ${quote(change.phase)}.`
      const added = `Added ${names(change.tasks)} to new last phase ${quote(change.phase)}.`
      return change.closeTo === undefined
        ? added
        : `${added} ${closeNameText(change.phase, change.closeTo, list)}`
    }
    case "renamed":
      return `Renamed ${change.what === "phase" ? "phase " : ""}${quote(change.from)} to ${quote(change.to)}.`
    case "removed": {
      const { tasks, phases } = change
      const why = change.reason === undefined ? "" : quote(change.reason)
      const after = why === "" ? "" : ` (${why})`
      if (phases.length === 0 && tasks.length === 0) return `The list was already empty${after}.`
      if (phases.length === 0)
        return tasks.length === 1
          ? `Removed ${quote(tasks[0]!)}${after}.`
          : `Removed ${names(tasks)}${after}.`
      if (phases.length === 1)
        return `Removed phase ${quote(phases[0]!)} (${plural(tasks.length, "task")}${why === "" ? "" : `; ${why}`}).`
      return `Removed ${plural(phases.length, "phase")}, ${plural(tasks.length, "task")}${after}.`
    }
    case "unchanged": {
      const after = change.reason === undefined ? "" : ` (${quote(change.reason)})`
      return `${quote(change.task)} is already ${STATUS_WORDS[change.status]}${after}.`
    }
  }
}

interface Described {
  readonly text: string
  /** Tasks named as started or reopened, so the result need not repeat "Now:". */
  readonly started: ReadonlySet<string>
}

/** Turns a call's changes into sentences, in the order things happened. */
function describeChanges(changes: readonly Change[], withStatus: boolean, list: TodoList): Described {
  const nets = new Map<string, Net>()
  const others: { order: number; text: string }[] = []
  changes.forEach((change, order) => {
    if (change.kind !== "status") {
      const text = describeOther(change, list)
      if (text) others.push({ order, text })
      return
    }
    let net = nets.get(change.task)
    if (net) {
      net.to = change.to
      net.last = change
    } else {
      net = { order, task: change.task, from: change.from, to: change.to, last: change }
      nets.set(change.task, net)
    }
    if (change.from === "blocked" && change.to === "pending" && change.reason !== undefined)
      net.unblockReason = change.reason
  })
  const groups = new Map<string, Group>()
  const started = new Set<string>()
  if (withStatus) {
    for (const net of nets.values()) {
      const key = groupKey(net)
      if (key === undefined) continue
      if (net.to === "in_progress") started.add(net.task)
      const group = groups.get(key)
      if (group) group.tasks.push(net.task)
      else groups.set(key, { order: net.order, key, tasks: [net.task], sample: net })
    }
  }
  const parts = [
    ...others.map((o) => ({ order: o.order, text: o.text, clause: false })),
    ...[...groups.values()].map((g) => ({
      order: g.order,
      text: renderGroup(g),
      clause: g.key === "demoted",
    })),
  ].sort((a, b) => a.order - b.order)
  let text = ""
  for (const part of parts) {
    // A demotion is the other half of a start: `Started "B"; "A" moved back to pending.`
    if (part.clause && text.endsWith(".")) text = `${text.slice(0, -1)}; ${part.text}`
    else text = text ? `${text} ${part.text}` : part.text
  }
  return { text, started }
}

/** The most ops whose unused fields a result names; a batch of 50 with stray fields must not flood it. */
const UNUSED_SHOWN = 3

/** `"to", "items" (not fields of done)`: one group of fields unused for one reason. */
function unusedGroup(
  keys: readonly string[],
  why: UnusedFields["fields"][number]["why"],
  op: string,
): string {
  const shown = quoteKeys(keys)
  if (why === "status") return `${shown} (a status is set by its op)`
  if (why === "unrecognized") return `${shown} (unrecognized)`
  return `${shown} (${keys.length === 1 ? "not a field" : "not fields"} of ${op})`
}

/**
 * `Not used: "status" (a status is set by its op).` What a successful call sent that nothing read, so a
 * model does not believe a stray field did something; said only when there is one.
 */
function unusedText(unused: readonly UnusedFields[] | undefined): string {
  if (unused === undefined || unused.length === 0) return ""
  const sentences = unused.slice(0, UNUSED_SHOWN).map((note) => {
    const order: UnusedFields["fields"][number]["why"][] = []
    const byWhy = new Map<string, string[]>()
    for (const field of note.fields) {
      const keys = byWhy.get(field.why)
      if (keys) keys.push(field.key)
      else {
        order.push(field.why)
        byWhy.set(field.why, [field.key])
      }
    }
    const groups = order.map((why) => unusedGroup(byWhy.get(why)!, why, note.op ?? ""))
    const where = note.at === undefined ? "" : ` in op ${note.at + 1} (${note.op})`
    return `Not used${where}: ${groups.join(", ")}.`
  })
  const rest = unused.length - UNUSED_SHOWN
  if (rest > 0) sentences.push(`Unused fields in ${plural(rest, "more op")}.`)
  return sentences.join(" ")
}

function nothingChanged(ops: readonly Op[]): string {
  const only = ops.length === 1 ? ops[0] : undefined
  if (only && "target" in only && only.target.kind === "phase")
    return `Nothing to change in phase ${quote(only.target.name)}.`
  return "Nothing changed."
}

/**
 * The tool result for one call. `before` is the list the call started from.
 * init and view print the whole list; everything else prints what changed plus the summary line.
 */
export function formatOutcome(before: TodoList, outcome: ExecuteResult): string {
  if (!outcome.ok) return `Error: ${outcome.error} Nothing was changed.`
  const showList = outcome.ops.some((op) => op.op === "init" || op.op === "view")
  // With the list printed, every status is visible in it; only say what the list cannot show.
  const { text: changed, started } = describeChanges(outcome.changes, !showList, outcome.list)
  // A stray field is said after what the call did, and only when there is one.
  const unused = unusedText(outcome.unused)
  const after = (text: string) => (unused === "" ? text : text ? `${text} ${unused}` : unused)
  if (showList) {
    const text = after(changed)
    // The marks are explained where the model meets them, not in the description every request carries.
    const legend = marksLegend(outcome.list)
    const shown = legend ? `${formatList(outcome.list)}\n${legend}` : formatList(outcome.list)
    return text ? `${text}\n${shown}` : shown
  }
  const head = after(changed || (outcome.list === before ? nothingChanged(outcome.ops) : "No net change."))
  const now = inProgressTask(outcome.list)
  const nowText = now && !started.has(now.task.text) ? `Now: ${quote(now.task.text)}. ` : ""
  return `${head}\n${nowText}${summaryLine(outcome.list)}`
}
