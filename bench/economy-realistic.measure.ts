// What the model pays for the todo tool over the sessions people have: the realistic session of
// bench/sessions/realistic.ts (a 60-task plan, 21 todo calls among 178 bash, read and edit calls, 200
// requests) driven through `opencode serve` with the built plugin (`todo`) and, in the same run, through the
// same host with the plugin turned off (`todowrite`, writing its whole list once per task: the writes of
// one update go out together, in the reply where our side makes its todo call, so both sides make the same
// 200 requests). Both sides do the same work calls on the same files.
//
// What a request carries of the todo tool (its calls' arguments and results, notices) depends only on the
// todo calls made before it: the work calls in between add nothing to it, and the plugin's stubs
// (src/core/model/stale.ts) depend on todo results alone. So the short run CI makes (60 requests a side, the
// same 21 todo calls among 38 work calls) gives what a request carries after each number k of todo calls,
// and the 200-request session is computed from it: request r carries what a request after k(r) todo calls
// carries, k(r) being the todo calls the 200-request schedule makes before r, plus the fixed part. `npm run
// bench` also makes the 200 real requests a side, reports them and their whole request bodies, and checks
// the computed figure against them (`bench:short` reports the bodies of its 60). The plugin in lean mode
// (`mode: "lean"`) makes the short run too, on a third side. Needs `npm run build` first.

import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import {
  addSizes,
  type Body,
  type BodySize,
  bodySize,
  type Carried,
  type Cost,
  carriedBy,
  fixedTotal,
  type Hosts,
  MODEL_IDS,
  type ModelID,
  measureFixed,
  millions,
  NO_SIZE,
  pct,
  type Reply,
  type Request,
  type RequestInfo,
  type Side,
  sessionCost,
  startHosts,
  stepsIn,
  type Tool,
  todowriteCalls,
  toolOf,
  USAGE,
} from "./economy-host.ts"
import { record, SHORT } from "./lib.ts"
import {
  REALISTIC_REQUESTS,
  REALISTIC_SHORT_REQUESTS,
  REALISTIC_SINGLE_OPS,
  REALISTIC_TODO_CALLS,
  schedule,
  WORK_FILES,
  WORK_SLOTS,
  workCall,
} from "./sessions/realistic.ts"

/**
 * Goal: the whole realistic session at most 8% of todowrite's (content and fixed part), under both prompts, in
 * the default mode and in lean mode, against a todowrite agent that batches as ours does (its list written once
 * per update, the harder of the two comparisons); CI holds it under 10% from the short run.
 */
const GOAL = 0.08
const BOUND = 0.1
const RUN = "economy:realistic"
const FIXED = "economy:realistic-fixed"
const TODO_CALLS = REALISTIC_TODO_CALLS.length
/** The 200 real requests a side, beside the short run: `npm run bench` only (minutes of real host turns). */
const FULL_RUN = !SHORT

/** The todowrite calls of each of our todo calls: the list after each of its single ops. */
function writesPerCall(): Record<string, unknown>[][] {
  const writes = todowriteCalls(REALISTIC_SINGLE_OPS)
  const out: Record<string, unknown>[][] = []
  let at = 0
  for (const call of REALISTIC_TODO_CALLS) {
    const ops = Array.isArray(call.ops) ? call.ops.length : 1
    out.push(writes.slice(at, at + ops))
    at += ops
  }
  expect(at).toBe(writes.length)
  return out
}

function moduleText(file: number): string {
  const lines = [
    `// Module ${file} of the benchmark's project: a few functions and the slots the edits rewrite.`,
  ]
  for (let slot = 0; slot < WORK_SLOTS; slot++) {
    lines.push(`// slot ${slot}.`)
    lines.push(`export function step${file}_${slot}(input: number): number {`)
    lines.push(`  return input * ${slot + 1} + ${file}`)
    lines.push("}")
  }
  return `${lines.join("\n")}\n`
}

/** The files the work calls read and edit, written afresh in a project folder. */
function writeWorkFiles(project: string, prefix: string): void {
  mkdirSync(join(project, "src"), { recursive: true })
  for (let file = 0; file < WORK_FILES; file++)
    writeFileSync(join(project, "src", `${prefix}${file}.ts`), moduleText(file))
}

interface Run {
  /** Per request: what it carries of the tool. */
  readonly carried: Carried[]
  /** Per number of todo calls made: what a request after that many carries. */
  readonly afterCalls: Carried[]
  /** Every request body: as the host sent it, and its content alone. */
  readonly bodies: BodySize
  /** Every call of the tool, as the last request carries it: arguments and result lengths. */
  readonly each: readonly { args: number; result: number }[]
}

interface Plan {
  readonly side: Side
  readonly requests: number
  readonly slots: readonly number[]
  /** File name prefix, so the short and the full run edit files of their own. */
  readonly prefix: string
}

const plans = new Map<string, Plan>()
/** Each side's tag in its prompt, all of one length, so every side's prompt is as long. */
const TAG: Record<Side, string> = { todo: "t", lean: "l", todowrite: "w" }

function decideFor(hosts: () => Hosts | undefined) {
  const writes = writesPerCall()
  return (body: Body, info: RequestInfo): Reply => {
    const h = hosts()
    if (info.kind !== "main" || !h) return undefined
    const asked = body.messages.filter((m) => m.role === "user").map((m) => h.mock.textOf(m.content))
    const plan = [...plans.entries()].find(([key]) => asked.some((t) => t.includes(key)))?.[1]
    if (!plan) return { text: "ok", usage: USAGE }
    const tool: Tool = toolOf(plan.side)
    const step = stepsIn(body)
    if (step >= plan.slots.length) return { text: "All done.", usage: USAGE }
    const j = plan.slots[step]!
    if (j >= 0)
      return {
        toolCalls:
          tool === "todo"
            ? [{ name: "todo", args: REALISTIC_TODO_CALLS[j] }]
            : writes[j]!.map((args) => ({ name: "todowrite", args })),
        usage: USAGE,
      }
    const work = workCall(plan.slots.slice(0, step).filter((s) => s < 0).length)
    const filePath = join(h.projects[plan.side], "src", `${plan.prefix}${work.file}.ts`)
    if (work.tool === "read") return { toolCalls: [{ name: "read", args: { filePath } }], usage: USAGE }
    if (work.tool === "edit")
      return {
        toolCalls: [
          {
            name: "edit",
            args: { filePath, oldString: `// slot ${work.slot}.`, newString: `// slot ${work.slot}: done.` },
          },
        ],
        usage: USAGE,
      }
    return {
      toolCalls: [
        {
          name: "bash",
          args: {
            command: `grep -c "done" src/${plan.prefix}${work.file}.ts`,
            description: "Count the edited slots",
          },
        },
      ],
      usage: USAGE,
    }
  }
}

async function runSide(hosts: Hosts, key: string, plan: Plan): Promise<Run> {
  const tool = toolOf(plan.side)
  writeWorkFiles(hosts.projects[plan.side], plan.prefix)
  const requests: Request[] = await hosts.prompt(plan.side, "m", `${key} Work through the plan.`)
  expect(requests, `${plan.side}: one request per step and a last one`).toHaveLength(plan.requests)
  const carried: Carried[] = []
  const afterCalls: Carried[] = []
  let bodies = NO_SIZE
  let each: { args: number; result: number }[] = []
  for (const request of requests) {
    const c = carriedBy(request.body, tool, hosts.mock.textOf)
    const steps = stepsIn(request.body)
    const made = plan.slots.slice(0, steps).filter((s) => s >= 0).length
    carried.push(c)
    each = c.each
    afterCalls[made] ??= c
    bodies = addSizes(bodies, bodySize(request.body, hosts.mock.textOf))
  }
  expect(afterCalls.filter(Boolean), `${plan.side}: a request after every number of todo calls`).toHaveLength(
    TODO_CALLS + 1,
  )
  return { carried, afterCalls, bodies, each }
}

/** The session of `requests` requests computed from what a request carries after k todo calls. */
function computed(afterCalls: readonly Carried[], requests: number, fixed: number): Cost {
  const slots = schedule(TODO_CALLS, requests)
  const perRequest: Carried[] = []
  for (let r = 0; r < requests; r++)
    perRequest.push(afterCalls[slots.slice(0, r).filter((s) => s >= 0).length]!)
  return sessionCost(perRequest, fixed)
}

/**
 * The todowrite side had it written its list once per update instead of once per task (21 writes: the last
 * write of each update, the same list our call leaves), from the lengths the real writes had: a lower bound
 * for a todowrite agent that batches as ours does.
 */
function oncePerUpdate(run: Run, requests: number, fixed: number): Cost {
  const lasts: { args: number; result: number }[] = []
  let at = 0
  for (const call of REALISTIC_TODO_CALLS) {
    at += Array.isArray(call.ops) ? call.ops.length : 1
    lasts.push(run.each[at - 1]!)
  }
  const afterCalls: Carried[] = []
  for (let k = 0; k <= lasts.length; k++) {
    const made = lasts.slice(0, k)
    afterCalls.push({
      args: made.reduce((a, c) => a + c.args, 0),
      planArgs: made[0]?.args ?? 0,
      results: made.reduce((a, c) => a + c.result, 0),
      injected: 0,
      envelope: 0,
      calls: k,
    })
  }
  return computed(afterCalls, requests, fixed)
}

it(
  "measures the realistic session's cost of todo against todowrite on the real host",
  async () => {
    let hosts: Hosts | undefined
    const decide = decideFor(() => hosts)
    hosts = await startHosts(decide)
    try {
      const fixed = await measureFixed(hosts, FIXED)
      const planOf = (side: Side, length: "short" | "full"): [string, Plan] => {
        const requests = length === "short" ? REALISTIC_SHORT_REQUESTS : REALISTIC_REQUESTS
        const key = `${RUN}:${length}:${TAG[side]}`
        const plan = { side, requests, slots: schedule(TODO_CALLS, requests), prefix: length }
        plans.set(key, plan)
        return [key, plan]
      }
      // The sides run at the same time, each in its own session and project folder; the lean side makes the
      // short run only (what a request carries of the tool is computed from it, as for the others).
      const h = hosts
      const side = async (which: Side): Promise<{ short: Run; full?: Run }> => {
        const s = await runSide(h, ...planOf(which, "short"))
        return FULL_RUN && which !== "lean"
          ? { short: s, full: await runSide(h, ...planOf(which, "full")) }
          : { short: s }
      }
      const [todoRuns, leanRuns, todowriteRuns] = await Promise.all([
        side("todo"),
        side("lean"),
        side("todowrite"),
      ])
      const runs: Record<Side, { short: Run; full?: Run }> = {
        todo: todoRuns,
        lean: leanRuns,
        todowrite: todowriteRuns,
      }

      const rows = MODEL_IDS.flatMap((modelID: ModelID) =>
        (["todo", "lean"] as const).map((mine) => ({ modelID, mine })),
      ).map(({ modelID, mine }) => {
        const cost = (side: Side) =>
          computed(runs[side].short.afterCalls, REALISTIC_REQUESTS, fixedTotal(fixed[side][modelID]))
        const real = (side: Side) => {
          const f = runs[side].full
          return f ? sessionCost(f.carried, fixedTotal(fixed[side][modelID])) : undefined
        }
        return {
          modelID,
          mode: mine === "lean" ? "lean" : "default",
          ours: cost(mine),
          theirs: cost("todowrite"),
          oursReal: real(mine),
          theirsReal: real("todowrite"),
          perUpdate: oncePerUpdate(
            runs.todowrite.short,
            REALISTIC_REQUESTS,
            fixedTotal(fixed.todowrite[modelID]),
          ),
        }
      })
      const label = (m: ModelID) => (m === "m" ? "default" : "Claude")
      const met = (share: number) => `${pct(share)} (${share <= GOAL ? "goal met" : "goal not met"})`
      const share = (a: number, b: number) => pct(a / b)
      const tableRows: string[][] = []
      for (const r of rows) {
        tableRows.push([
          label(r.modelID),
          r.mode,
          "computed from 60",
          millions(r.ours.total),
          millions(r.theirs.total),
          share(r.ours.total, r.theirs.total),
          millions(r.ours.withEnvelope),
          millions(r.theirs.withEnvelope),
          share(r.ours.withEnvelope, r.theirs.withEnvelope),
        ])
        tableRows.push([
          label(r.modelID),
          r.mode,
          "todowrite once per update (21 writes)",
          millions(r.ours.total),
          millions(r.perUpdate.total),
          met(r.ours.total / r.perUpdate.total),
          "",
          "",
          "",
        ])
        if (r.oursReal && r.theirsReal)
          tableRows.push([
            label(r.modelID),
            r.mode,
            "measured, 200 real",
            millions(r.oursReal.total),
            millions(r.theirsReal.total),
            share(r.oursReal.total, r.theirsReal.total),
            millions(r.oursReal.withEnvelope),
            millions(r.theirsReal.withEnvelope),
            share(r.oursReal.withEnvelope, r.theirsReal.withEnvelope),
          ])
      }
      const bodyRuns = (["short", "full"] as const).flatMap((k) => {
        const a = runs.todo[k]
        const b = runs.todowrite[k]
        return a && b
          ? [{ requests: k === "short" ? REALISTIC_SHORT_REQUESTS : REALISTIC_REQUESTS, a, b }]
          : []
      })
      const d = rows.find((r) => r.modelID === "m" && r.mode === "default")!
      const parts = (c: Cost) => [c.fixed, c.args, c.planArgs, c.results, c.injected, c.envelope, c.total]
      const partNames = [
        "fixed part of every request",
        "call arguments",
        "…of which the first call's (the plan)",
        "call results",
        "injected notices",
        "JSON around the calls (envelope)",
        "total (without the envelope)",
      ]
      record("economy-realistic", [
        {
          title: "The realistic session: what a whole session of 200 requests costs (characters)",
          note: `bench/sessions/realistic.ts: a plan of 4 phases of 15 tasks, then 20 todo updates (batches marking the 3 or 4 tasks finished since the last one done; 2 tasks appended, 1 blocked and unblocked): 21 todo calls among 178 bash, read and edit calls on the project's files, one call per request, 200 requests. The todowrite side does the same work and writes its whole list once per task (${REALISTIC_SINGLE_OPS.length} writes, those of one update in the same reply). A row counts, over every request, the fixed part (tool entry, skill entry, host prompt passages) plus the todo tool's call arguments, results and injected notices as the model reads them; "with envelope" adds the JSON of the messages around them (ids, roles, field names). "Computed from 60": from a real run of 60 requests a side with the same 21 todo calls among 38 work calls (what CI runs): request r of the 200 carries what a request after as many todo calls carries, as the 200-request schedule places them (todo call j at tool call floor(j × 199 / 21)). "Measured, 200 real": the 200 real requests a side (npm run bench only; bench:short makes the 60). "todowrite once per update": had the todowrite side written its list once per todo update (21 writes, the list each of our calls leaves), from the lengths of its real writes. "lean": the plugin with \`mode: "lean"\` (short run only). Goal: at most ${pct(GOAL)} of todowrite's once-per-update figure (without the envelope), under both prompts and in both modes; CI holds it under ${pct(BOUND)}.`,
          columns: [
            "prompt",
            "mode",
            "how",
            "todo",
            "todowrite",
            "share",
            "todo, with envelope",
            "todowrite, with envelope",
            "share, with envelope",
          ],
          rows: tableRows,
        },
        {
          title: "The realistic session: where the characters go (default prompt, 200 requests)",
          note: "Computed from the 60-request run. On the todo side, every older result goes out as a one-line stub; arguments go out as the model wrote them, so the plan call's list rides on every request.",
          columns: ["part", "todo", "todowrite", "todo, share of its total"],
          rows: partNames.map((name, i) => [
            name,
            millions(parts(d.ours)[i]!),
            millions(parts(d.theirs)[i]!),
            pct(parts(d.ours)[i]! / d.ours.total),
          ]),
        },
        {
          title: "The realistic session: whole request bodies (characters)",
          note: `Every request body of the real runs as the host sent them (default prompt): the system prompt, the tools, every message with the work calls' file contents and outputs. "With envelope" is the JSON as sent; "without" counts what the model reads of it: every message's text, every call's tool name and arguments, every tool's name, description and parameters. The share is what the plugin's side sends against the plugin-off side (the bare host with todowrite) for the same work. The whole bodies are not computed from the 60-request run, since the work calls' outputs they carry grow with the session: the 200-request row is measured (npm run bench only).`,
          columns: [
            "real requests a side",
            "todo",
            "todowrite",
            "share",
            "todo, with envelope",
            "todowrite, with envelope",
            "share, with envelope",
          ],
          rows: bodyRuns.map(({ requests, a, b }) => [
            String(requests),
            millions(a.bodies.content),
            millions(b.bodies.content),
            pct(a.bodies.content / b.bodies.content),
            millions(a.bodies.json),
            millions(b.bodies.json),
            pct(a.bodies.json / b.bodies.json),
          ]),
        },
      ])

      for (const r of rows) {
        if (r.oursReal && r.theirsReal) {
          // The computation from the short run must give what the 200 real requests carried.
          expect(
            Math.abs(r.ours.total - r.oursReal.total) / r.oursReal.total,
            `todo ${r.modelID}: computed vs measured`,
          ).toBeLessThan(0.005)
          expect(
            Math.abs(r.theirs.total - r.theirsReal.total) / r.theirsReal.total,
            `todowrite ${r.modelID}: computed vs measured`,
          ).toBeLessThan(0.005)
        }
      }
      for (const r of rows)
        expect(
          r.ours.total / r.perUpdate.total,
          `realistic session of 200 requests, ${r.modelID} prompt, ${r.mode} mode, against todowrite once per update`,
        ).toBeLessThan(SHORT ? BOUND : GOAL)
    } finally {
      await hosts.stop()
    }
    // The full run makes 520 requests through the real host, minutes on a loaded machine.
  },
  SHORT ? 900_000 : 3_600_000,
)
