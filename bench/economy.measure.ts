// What the model pays, in characters: the tool results of the reference session (bench/sessions/reference.ts)
// against a format that reprints the remaining items and the whole list after every call; the tool
// description and JSON schema that ride on every request; and the texts the plugin injects over the
// end-to-end scenarios of scripts/smoke.mjs, replayed through the core tracker without the host.
// Targets: results at most a fifth of the comparison format, every result still saying in plain words
// and by task text what changed, what is in progress, what is next and the overall counts; description
// plus schema under 3,000 characters; no notice injected twice for the same state.

import { expect, it } from "vitest"
import { PLAN, TASKS } from "../scripts/lib/scenarios.mjs"
import { DEFAULT_CONFIG } from "../src/core/config.ts"
import { diffLists } from "../src/core/list/diff.ts"
import { execute } from "../src/core/list/execute.ts"
import { counts, eachTask, inProgressTask, nextPendingTask } from "../src/core/list/queries.ts"
import {
  DEFAULT_LIMITS,
  OP_NAMES,
  type OpName,
  type TaskStatus,
  type TodoList,
} from "../src/core/list/types.ts"
import { progressText, STATUS_WORDS } from "../src/core/list/words.ts"
import { formatOutcome } from "../src/core/model/format.ts"
import {
  commandReplyText,
  LEAN_TOOL_DESCRIPTION,
  MARKER,
  TOOL_DESCRIPTION,
} from "../src/core/model/prompts.ts"
import {
  initialTracker,
  type NoticeKind,
  stepTracker,
  type TrackerAction,
  type TrackerConfig,
  type TrackerEvent,
} from "../src/core/session/tracker.ts"
import { toolParameters } from "../src/server/tool-trial.ts"
import { record, type Table } from "./lib.ts"
import { REFERENCE_CALLS, REFERENCE_PLAN } from "./sessions/reference.ts"

const TARGET_SHARE = 1 / 5
const BASELINE_CALIBRATION = 215_000
const LEAN_REQUEST_MAX = 3_000

const n = (value: number) => Math.round(value).toLocaleString("en-US")

// ---- the comparison format ------------------------------------------------------------------------

/**
 * The comparison format: a todo tool that answers every call by reprinting the remaining items, then the
 * whole list, whatever the call changed. Built the way todowrite-style tools answer, in the leanest honest
 * form (plain text, no JSON, no ids): a line with the counts; "Remaining items:", one line per open task
 * with its phase, plus its status when it is not pending; "Full list:", every phase name, then every task
 * as a checkbox line ("[x]", "[ ]", "[~]", "[!]" with the blocker's reason). Its cost follows the size of
 * the list, not the size of the change. Calibration: on the reference session it costs about 215,000
 * characters (about 4,100 per call); the test holds it within 5% of that, so a change to the session
 * cannot silently move the yardstick.
 */
const BOXES: Readonly<Record<TaskStatus, string>> = {
  pending: "[ ]",
  in_progress: "[~]",
  completed: "[x]",
  abandoned: "[-]",
  blocked: "[!]",
}

function baselineResult(list: TodoList): string {
  const c = counts(list)
  const lines = [
    `Todo list updated: ${c.total - c.closed} remaining, ${c.closed} of ${c.total} completed.`,
    "",
    "Remaining items:",
  ]
  for (const { task, phaseIndex } of eachTask(list))
    if (task.status !== "completed" && task.status !== "abandoned")
      lines.push(
        `- ${task.text} (${list[phaseIndex]!.name}${task.status === "pending" ? "" : `, ${STATUS_WORDS[task.status]}`})`,
      )
  lines.push("", "Full list:")
  for (const phase of list) {
    lines.push(`${phase.name}:`)
    for (const task of phase.tasks)
      lines.push(`${BOXES[task.status]} ${task.text}${task.blocker ? ` (blocked: ${task.blocker})` : ""}`)
  }
  return lines.join("\n")
}

// ---- replaying the reference session --------------------------------------------------------------

interface Replayed {
  readonly args: Readonly<Record<string, unknown>>
  readonly op: OpName
  readonly before: TodoList
  readonly after: TodoList
  readonly ours: string
  readonly baseline: string
}

function replayReference(): Replayed[] {
  let list: TodoList = []
  return REFERENCE_CALLS.map((args) => {
    const outcome = execute(list, args, DEFAULT_LIMITS)
    if (!outcome.ok) throw new Error(`reference call ${JSON.stringify(args)} failed: ${outcome.error}`)
    const before = list
    list = outcome.list
    return {
      args,
      op: outcome.ops[0]!.op,
      before,
      after: list,
      ours: formatOutcome(before, outcome),
      baseline: baselineResult(list),
    }
  })
}

function statusMap(list: TodoList): Map<string, { status: TaskStatus; blocker?: string | undefined }> {
  const map = new Map<string, { status: TaskStatus; blocker?: string | undefined }>()
  for (const { task } of eachTask(list)) map.set(task.text, { status: task.status, blocker: task.blocker })
  return map
}

/** Tasks added, removed or moved to another status by a call, and the reasons of newly blocked ones. */
function netChanges(before: TodoList, after: TodoList): { texts: string[]; reasons: string[] } {
  const was = statusMap(before)
  const now = statusMap(after)
  const texts: string[] = []
  const reasons: string[] = []
  for (const [text, task] of now) {
    const old = was.get(text)
    if (old && old.status === task.status && old.blocker === task.blocker) continue
    texts.push(text)
    if (task.status === "blocked" && task.blocker) reasons.push(task.blocker)
  }
  for (const text of was.keys()) if (!now.has(text)) texts.push(text)
  return { texts, reasons }
}

// Codes and index references the model might be tempted to use back: "#3", "task-3", "item 3", "[3]".
const ID_REFERENCE = /#\d|\b(?:task|item|todo|phase|step|id)[-_ ]?#?\d+\b|\[\d+\]/i

const CHECKS = ["changed", "inProgress", "next", "counts", "idFree"] as const
type Check = (typeof CHECKS)[number]
type Tally = Record<Check, { checked: number; passed: number }>

/**
 * The plain-words checks on one result, derived from the list state after the call (never per-call
 * strings). Failures are collected rather than thrown, so the figures are recorded even when one fails.
 */
function checkResult(r: Replayed, tally: Tally, failures: string[]): void {
  const check = (name: Check, ok: boolean, what: string) => {
    tally[name].checked++
    if (ok) tally[name].passed++
    else failures.push(`${what}, in the result of ${JSON.stringify(r.args).slice(0, 100)}:\n${r.ours}`)
  }
  if (r.op !== "view") {
    const { texts, reasons } = netChanges(r.before, r.after)
    const missing = [...texts, ...reasons].filter((t) => !r.ours.includes(t))
    check(
      "changed",
      texts.length > 0 && missing.length === 0,
      `what changed is not named by text (${missing.map((t) => `"${t}"`).join(", ") || "no change"})`,
    )
  }
  const now = inProgressTask(r.after)
  if (now) {
    const t = now.task.text
    const said = [`Now: "${t}"`, `Started "${t}"`, `Unblocked and started "${t}"`, `[>] ${JSON.stringify(t)}`]
    check(
      "inProgress",
      said.some((s) => r.ours.includes(s)),
      `the task in progress "${t}" is not named`,
    )
  }
  const next = nextPendingTask(r.after)
  if (next) check("next", r.ours.includes(`Next: "${next.task.text}"`), `the next task is not named`)
  const c = counts(r.after)
  const overall = r.ours.includes(progressText(c))
  check("counts", overall, `the overall counts ${progressText(c)} are not given`)
  check("idFree", !ID_REFERENCE.test(r.ours), "a code or index reference")
}

const CHECK_LABELS: readonly (readonly [Check, string])[] = [
  ["changed", "what changed, by task text (mutating calls)"],
  ["inProgress", "task in progress (when one is)"],
  ["next", "next task (when one exists)"],
  ["counts", "overall counts"],
  ["idFree", "no codes or index references"],
]

interface Cost {
  readonly total: number
  readonly mean: number
  readonly max: number
}

function cost(lengths: readonly number[]): Cost {
  const total = lengths.reduce((a, b) => a + b, 0)
  return { total, mean: lengths.length ? total / lengths.length : 0, max: Math.max(0, ...lengths) }
}

// ---- the tool description and schema ---------------------------------------------------------------

// ---- injected texts over the end-to-end scenarios --------------------------------------------------

// The smoke host runs with OPENCODE_TODO_EAGER=preferred; everything else is the default.
const TRACKER: TrackerConfig = { ...DEFAULT_CONFIG, eager: "preferred" }

const KINDS = [
  "prelude",
  "reminder",
  "nudge",
  "resume",
  "compaction notice",
  "compaction context",
  "user edit",
  "/todo command reply",
] as const
type Kind = (typeof KINDS)[number]

/** The row each kind the tracker gives its texts is counted in; a text carrying several notices has none. */
const ROWS: Readonly<Record<NoticeKind, Kind | undefined>> = {
  prelude: "prelude",
  reminder: "reminder",
  nudge: "nudge",
  resume: "resume",
  // A fork's or an import's start is a resume of another kind; the economy sessions have none.
  carried: "resume",
  compaction: "compaction notice",
  "compaction-context": "compaction context",
  "user-edit": "user edit",
  notices: undefined,
}

interface Injection {
  readonly scenario: string
  readonly kind: Kind
  readonly chars: number
}

interface ScenarioTally {
  events: number
  repeats: number
}

class Log {
  readonly injections: Injection[] = []
  readonly scenarios = new Map<string, ScenarioTally>()
  tally(scenario: string): ScenarioTally {
    const known = this.scenarios.get(scenario)
    if (known) return known
    const fresh = { events: 0, repeats: 0 }
    this.scenarios.set(scenario, fresh)
    return fresh
  }
  add(scenario: string, kind: Kind, text: string): void {
    expect(text.startsWith(MARKER), `${kind} carries the marker`).toBe(true)
    expect(text, `${kind} has no codes or index references`).not.toMatch(ID_REFERENCE)
    this.injections.push({ scenario, kind, chars: text.length })
  }
  count(scenario: string, kind: Kind): number {
    return this.injections.filter((i) => i.scenario === scenario && i.kind === kind).length
  }
}

const repeat = <T>(times: number, value: T): T[] => Array.from({ length: times }, () => value)

/**
 * One session as the server adapter sees it, driven event by event the way the host sends them (prompt,
 * model request, tool results, idle). Every text the tracker returns is counted by kind; after each
 * delivery the triggering request or idle is repeated on the unchanged state and must inject nothing.
 */
class Sim {
  private state = initialTracker()
  list: TodoList = []
  constructor(
    public scenario: string,
    private readonly log: Log,
    private readonly isNewSession = true,
  ) {}

  private step(event: TrackerEvent): TrackerAction[] {
    const out = stepTracker(this.state, event, TRACKER)
    this.state = out.state
    this.log.tally(this.scenario).events++
    return out.actions
  }

  private deliver(event: TrackerEvent, again: readonly TrackerEvent[]): TrackerAction[] {
    const actions = this.step(event)
    for (const action of actions) {
      const kind = ROWS[action.kind]
      expect(kind, `one notice per text in ${this.scenario}: ${action.text}`).toBeDefined()
      this.log.add(this.scenario, kind!, action.text)
    }
    if (actions.length === 0) return actions
    for (const e of again) {
      expect(this.step(e), `${this.scenario}: nothing injected twice for the same state`).toEqual([])
      this.log.tally(this.scenario).repeats++
    }
    return actions
  }

  private request(): TrackerEvent {
    return { type: "modelRequest", kind: "main", list: this.list }
  }

  private idleEvent(text: string, aborted: boolean): TrackerEvent {
    return {
      type: "idle",
      list: this.list,
      lastAssistantText: text,
      userMessageWaiting: false,
      aborted,
      errored: false,
      openQuestion: false,
      isSubagent: false,
    }
  }

  /** A prompt the user typed; notices it carries are attached to it. */
  prompt(text: string): TrackerAction[] {
    const event: TrackerEvent = {
      type: "userMessage",
      parts: [{ type: "text", text }],
      list: this.list,
      isNewSession: this.isNewSession,
      isSubagent: false,
    }
    return this.deliver(event, repeat(3, this.request()))
  }

  /** A user message made only of plugin text: a reminder turn, or a /todo command reply. */
  pluginTurn(text: string, synthetic: boolean): void {
    const event: TrackerEvent = {
      type: "userMessage",
      parts: [{ type: "text", text, ...(synthetic ? { synthetic: true } : {}) }],
      list: this.list,
      isNewSession: this.isNewSession,
      isSubagent: false,
    }
    expect(this.step(event), "a plugin turn carries no further notice").toEqual([])
  }

  /** The model request the host makes next (after a prompt or a tool result). */
  requestModel(): TrackerAction[] {
    return this.deliver(this.request(), repeat(3, this.request()))
  }

  todo(args: unknown): boolean {
    const outcome = execute(this.list, args, DEFAULT_LIMITS)
    this.list = outcome.list
    const todoOps = outcome.ok ? outcome.ops.map((op) => op.op) : []
    this.step({ type: "toolResult", tool: "todo", ok: outcome.ok, todoOps, list: this.list })
    return outcome.ok
  }

  tool(name: string): void {
    this.step({ type: "toolResult", tool: name, ok: true, list: this.list })
  }

  /** The agent stopped with this text. Returns the reminder text, when one went out. */
  idle(text: string, aborted = false): string | undefined {
    const actions = this.deliver(this.idleEvent(text, aborted), [
      ...repeat(3, this.idleEvent(text, aborted)),
      ...repeat(3, this.request()),
    ])
    return actions.find((a) => a.type === "remind")?.text
  }

  /** The session's compaction: the summarizer's context, then the compacted event. */
  compact(): void {
    this.deliver({ type: "modelRequest", kind: "compaction", list: this.list }, [])
    this.step({ type: "compacted" })
  }

  resumed(): void {
    this.step({ type: "resumed", list: this.list })
  }

  userEdit(lines: readonly string[], removed: readonly string[]): void {
    this.step({ type: "userEdit", lines, removed })
  }

  /** A tool call followed by the host's next model request. */
  call(args: unknown): boolean {
    const ok = this.todo(args)
    this.requestModel()
    return ok
  }
}

/** Runs every scenario of scripts/smoke.mjs in its order, with the replies of scripts/lib/scenarios.mjs. */
function runScenarios(): Log {
  const log = new Log()
  const opening = (sim: Sim, prompt: string) => {
    sim.prompt(prompt)
    sim.requestModel()
  }
  /** A reminder starts a new turn whose first request the tracker also sees. */
  const remindedTurn = (sim: Sim, reminder: string | undefined) => {
    expect(reminder, `${sim.scenario}: a reminder went out`).toBeDefined()
    sim.pluginTurn(reminder!, true)
    sim.requestModel()
  }

  // plan: the session the compaction and resume checks reuse.
  const plan = new Sim("prelude (plan)", log)
  opening(plan, "scenario:plan Fix the parser bugs.")
  plan.call({ list: PLAN })
  remindedTurn(plan, plan.idle("Noted."))
  expect(plan.idle("Noted.")).toBeUndefined()

  const stall = new Sim("stall", log)
  opening(stall, "scenario:stall Fix the parser bugs.")
  stall.call({ list: PLAN })
  remindedTurn(stall, stall.idle("I have a plan. Pausing here."))
  expect(stall.idle("Still thinking about the approach.")).toBeUndefined()
  expect(log.count("stall", "reminder")).toBe(1)

  const progress = new Sim("progress", log)
  opening(progress, "scenario:progress Fix the parser bugs.")
  progress.call({ list: PLAN })
  const stop = "One more step done; stopping for now."
  let reminder = progress.idle(stop)
  for (const task of TASKS.slice(0, 3)) {
    remindedTurn(progress, reminder)
    progress.call({ op: "done", task })
    reminder = progress.idle(stop)
  }
  expect(reminder).toBeUndefined()
  expect(log.count("progress", "reminder")).toBe(3)

  const question = new Sim("question", log)
  opening(question, "scenario:question Fix the parser bugs.")
  question.call({ list: PLAN })
  expect(
    question.idle("I found two ways to fix this.\nShould I rewrite the tokenizer or patch the existing one?"),
  ).toBeUndefined()

  const closed = new Sim("closed", log)
  opening(closed, "scenario:closed Fix the parser bugs.")
  closed.call({ items: ["Update the changelog", "Publish the release"] })
  closed.call({
    ops: [
      { op: "done", task: "Update the changelog" },
      { op: "block", task: "Publish the release", reason: "needs the registry token" },
    ],
  })
  expect(closed.idle("Changelog updated; publishing waits for the token.")).toBeUndefined()

  const abort = new Sim("abort", log)
  opening(abort, "scenario:abort Fix it.")
  abort.call({ list: PLAN })
  expect(abort.idle("", true)).toBeUndefined()

  const nudge = new Sim("nudge", log)
  opening(nudge, "scenario:nudge Fix the parser bugs.")
  nudge.call({ list: PLAN })
  let nudgedAfter = 0
  for (let i = 1; i <= 13; i++) {
    nudge.tool("bash")
    if (nudge.requestModel().length > 0) nudgedAfter = i
  }
  expect(nudgedAfter, "the nudge goes out on the request after the 12th shell command").toBe(12)
  remindedTurn(nudge, nudge.idle("Done with the edits."))
  expect(nudge.idle("Done with the edits.")).toBeUndefined()

  const errors = new Sim("errors", log)
  opening(errors, "scenario:errors Try some calls.")
  errors.call({ list: PLAN })
  expect(errors.call({ op: "done", task: "Deploy to production" })).toBe(false)
  expect(errors.call({ task: "Handle empty input" })).toBe(false)
  expect(errors.call({ op: "append", phase: "Fix", items: ["Handle empty input"] })).toBe(false)
  remindedTurn(errors, errors.idle("Those calls failed."))
  expect(errors.idle("Acknowledged.")).toBeUndefined()

  // /todo rm on the closed session: the command's reply is the user message of the turn the host starts.
  closed.scenario = "user edit"
  const beforeRm = closed.list
  const rm = execute(beforeRm, { op: "rm", task: "Publish the release" }, DEFAULT_LIMITS)
  expect(rm.ok).toBe(true)
  closed.list = rm.list
  const diff = diffLists(beforeRm, rm.list)
  const reply = commandReplyText({ lines: diff.lines, removed: diff.removed, list: rm.list })
  log.add("user edit", "/todo command reply", reply)
  closed.pluginTurn(reply, false)
  closed.requestModel()
  expect(closed.idle("Acknowledged.")).toBeUndefined()
  // Another process (the TUI) adds a task and queues the edit note; the next prompt carries it.
  const phase = closed.list[0]!.name
  closed.list = [
    { name: phase, tasks: [...closed.list[0]!.tasks, { text: "Tag the release", status: "pending" }] },
  ]
  closed.userEdit([`added "Tag the release" to "${phase}" (pending)`], [])
  expect(closed.prompt("scenario:view What changed?")).toHaveLength(1)
  closed.requestModel()
  closed.call({ op: "view" })
  // The prompt asked and the agent only looked: an answer, not a stop with work open.
  expect(closed.idle("Here is where we are.")).toBeUndefined()
  expect(log.count("user edit", "user edit")).toBe(1)

  // Compaction of the plan session, then the user carries on.
  plan.scenario = "compaction"
  plan.compact()
  expect(plan.prompt("scenario:view Carry on."), "no prelude and no notice on the prompt").toEqual([])
  expect(plan.requestModel(), "the first request after compaction carries the list").toHaveLength(1)
  plan.call({ op: "view" })
  remindedTurn(plan, plan.idle("Here is where we are."))
  plan.call({ op: "view" })
  expect(plan.idle("Here is where we are.")).toBeUndefined()
  expect(log.count("compaction", "compaction notice")).toBe(1)

  // A second process: the plan session's stored list is read back; the first prompt carries it.
  const resumed = new Sim("resume", log, false)
  resumed.list = plan.list
  resumed.resumed()
  const attached = resumed.prompt("scenario:view Where were we?")
  expect(attached.map((a) => a.kind)).toEqual(["resume"])
  resumed.requestModel()
  resumed.call({ op: "view" })
  // The prompt asked and the agent only looked: an answer, not a stop with work open.
  expect(resumed.idle("Here is where we are.")).toBeUndefined()

  const preludes = log.injections.filter((i) => i.kind === "prelude").length
  expect(preludes, "one prelude per new session").toBe(8)
  return log
}

// ---- the benchmark ---------------------------------------------------------------------------------

it("counts what the model pays over the reference session and the scripted scenarios", async () => {
  // The session is what the issue describes.
  expect(REFERENCE_PLAN).toHaveLength(5)
  const texts = REFERENCE_PLAN.flatMap((p) => p.items)
  expect(REFERENCE_PLAN.every((p) => p.items.length === 8)).toBe(true)
  expect(new Set(texts).size).toBe(texts.length)
  for (const text of texts) expect(text.length).toBeGreaterThanOrEqual(40)
  for (const text of texts) expect(text.length).toBeLessThanOrEqual(60)
  const meanText = texts.reduce((a, t) => a + t.length, 0) / texts.length
  expect(Math.abs(meanText - 50)).toBeLessThan(3)

  const replayed = replayReference()
  const ops = (op: OpName) => replayed.filter((r) => r.op === op).length
  expect(replayed.length).toBe(52)
  expect([ops("init"), ops("start"), ops("block"), ops("unblock"), ops("append"), ops("view")]).toEqual([
    1, 3, 1, 1, 1, 3,
  ])
  const final = counts(replayed.at(-1)!.after)
  expect([final.total, final.completed]).toEqual([42, 42])
  // Work is done in order: every done names the task in progress; starts are out of order.
  for (const r of replayed) {
    const task = (r.args as { task?: string }).task
    if (r.op === "done") expect(inProgressTask(r.before)?.task.text).toBe(task)
    if (r.op === "start") expect(nextPendingTask(r.before)?.task.text).not.toBe(task)
  }
  const blockAt = replayed.findIndex((r) => r.op === "block")
  const unblockAt = replayed.findIndex((r) => r.op === "unblock")
  expect(unblockAt - blockAt, "unblocked much later").toBeGreaterThanOrEqual(15)

  const tally = Object.fromEntries(CHECKS.map((c) => [c, { checked: 0, passed: 0 }])) as Tally
  const failures: string[] = []
  for (const r of replayed) checkResult(r, tally, failures)

  const ours = cost(replayed.map((r) => r.ours.length))
  const baseline = cost(replayed.map((r) => r.baseline.length))
  const share = ours.total / baseline.total

  const byOp = OP_NAMES.filter((op) => ops(op) > 0).map((op) => {
    const rows = replayed.filter((r) => r.op === op)
    const c = cost(rows.map((r) => r.ours.length))
    const b = cost(rows.map((r) => r.baseline.length))
    return [op, String(rows.length), n(c.mean), n(c.max), n(c.total), n(b.mean)]
  })

  // As OpenCode 1.18 sends it: the input side (no "additionalProperties": false), without "$schema" (hooks.ts).
  const schema = toolParameters()
  const perRequest = TOOL_DESCRIPTION.length + schema.length

  const log = runScenarios()
  const kindRows = KINDS.map((kind) => {
    const hits = log.injections.filter((i) => i.kind === kind)
    const c = cost(hits.map((i) => i.chars))
    return [kind, String(hits.length), n(c.total), n(c.mean), n(c.max)]
  })
  const injected = cost(log.injections.map((i) => i.chars))
  const scenarioRows = [...log.scenarios].map(([name, t]) => {
    const hits = log.injections.filter((i) => i.scenario === name)
    const kinds = KINDS.filter((k) => hits.some((i) => i.kind === k))
      .map((k) => `${k} ×${hits.filter((i) => i.kind === k).length}`)
      .join(", ")
    return [
      name,
      String(t.events),
      kinds || "none",
      n(hits.reduce((a, i) => a + i.chars, 0)),
      String(t.repeats),
    ]
  })
  const repeats = [...log.scenarios.values()].reduce((a, t) => a + t.repeats, 0)

  const tables: Table[] = [
    {
      title: "Tool results over the reference session (characters)",
      note: `bench/sessions/reference.ts: 5 phases of 8 tasks (task texts ${Math.min(...texts.map((t) => t.length))}–${Math.max(...texts.map((t) => t.length))} characters, mean ${meanText.toFixed(1)}), then ${replayed.length} calls: init, every task done in order with 3 out-of-order starts, 1 task blocked with a reason and unblocked ${unblockAt - blockAt} calls later, 2 tasks appended to phase 3, 3 views. "Reprint everything" answers every call with the remaining items (status and phase) and then the whole list by phase, in plain text (bench/economy.measure.ts, \`baselineResult\`); it is calibrated to about ${n(BASELINE_CALIBRATION)} characters on this session. Target: ours at most ${Math.round(TARGET_SHARE * 100)}% of it.`,
      columns: ["format", "calls", "total", "per call", "max", "share"],
      rows: [
        [
          "opencode-todo",
          String(replayed.length),
          n(ours.total),
          n(ours.mean),
          n(ours.max),
          `${(share * 100).toFixed(1)}% (1/${(1 / share).toFixed(1)})`,
        ],
        [
          "reprint everything",
          String(replayed.length),
          n(baseline.total),
          n(baseline.mean),
          n(baseline.max),
          "100%",
        ],
      ],
    },
    {
      title: "Tool results by op (characters)",
      note: "init and view print the whole list; every other op prints what changed, the task in progress, the next task and the counts.",
      columns: ["op", "calls", "ours per call", "ours max", "ours total", "reprint everything per call"],
      rows: byOp,
    },
    {
      title: "What every result says (checks on each of the reference session's results)",
      note: 'Checked against the list after each call, not against expected strings: every task a call added or moved (and a new blocker\'s reason) appears by its text; the task in progress appears as `Now: "…"`, `Started "…"` or its `[>]` line; the next pending task as `Next: "…"`; the overall counts as the one progress text of words.ts (`N/M done`, dropped tasks apart) matching the list; no `#3`, `task-3`, `[3]`-style references.',
      columns: ["check", "results checked", "passed"],
      rows: CHECK_LABELS.map(([check, label]) => [
        label,
        String(tally[check].checked),
        String(tally[check].passed),
      ]),
    },
    {
      title: "What rides on every request (characters)",
      note: 'The tool description, and the argument schema as `z.toJSONSchema(z.object(args), { io: "input" })` serialized compactly without its `$schema` line (what OpenCode 1.18 sends as the tool\'s `parameters`; bench/economy-session.measure.ts reads it from the request), from the arguments the plugin registers; in lean mode (`mode: "lean"`) the description is the short one. Target: together under 3,000.',
      columns: ["part", "default mode", "lean mode"],
      rows: [
        ["tool description", n(TOOL_DESCRIPTION.length), n(LEAN_TOOL_DESCRIPTION.length)],
        ["JSON schema", n(schema.length), n(schema.length)],
        ["per request", n(perRequest), n(LEAN_TOOL_DESCRIPTION.length + schema.length)],
      ],
    },
    {
      title: "Injected texts over the end-to-end scenarios (characters)",
      note: `The scenarios of scripts/smoke.mjs with the scripted replies of scripts/lib/scenarios.mjs, replayed through the core tracker (no host): eager mode \`preferred\`, otherwise the defaults. The compaction context goes to the summarizer, not the working model; the /todo reply is the text of the turn the host starts after the command. Total ${n(injected.total)} characters in ${log.injections.length} texts.`,
      columns: ["kind", "texts", "total", "per text", "max"],
      rows: kindRows,
    },
    {
      title: "Injected texts per scenario",
      note: `After every delivery the event that triggered it (the prompt's following requests, the request, or the idle and its following requests) is repeated three times on the unchanged state: ${repeats} repeated events, none injected anything. (The summarizer's context goes with each compaction request by design, so it is not repeated.) Tracker events include the repeats.`,
      columns: ["scenario", "tracker events", "injected", "characters", "repeats, no injection"],
      rows: scenarioRows,
    },
  ]
  record("economy", tables)

  expect(
    failures,
    "every result says what changed, what is in progress, what is next and the counts",
  ).toEqual([])
  expect(Math.abs(baseline.total - BASELINE_CALIBRATION) / BASELINE_CALIBRATION).toBeLessThan(0.05)
  expect(ours.total).toBeLessThanOrEqual(baseline.total * TARGET_SHARE)
  expect(perRequest).toBeLessThan(LEAN_REQUEST_MAX)
})
