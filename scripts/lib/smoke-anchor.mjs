// Smoke proof that every change is anchored where it happened, whatever order the host runs things in, on the
// real binary: two /todo commands sent at once (both hooks run before either command's message exists) each
// settle on their own message, so an undo at the later message takes back that command's edit only; two todo
// calls of one reply approved in reverse order (the later part's call finishes first) each stay at their own
// part, so an undo at the later part takes back that call only, and the host keeps the earlier call's result.
// Lists are read from the stored record.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { PLAN, shape, TASKS, todo } from "./scenarios.mjs"
import { until } from "./wait.mjs"

/** How long the plugin gets to follow an event (the host delivers events to plugins asynchronously). */
const FOLLOW_MS = 8000
const ADDED = "Write the docs"
const CALLS = ["call_anchor_first", "call_anchor_second"]

/** The scripted model: a plan; then two todo calls in one reply (done the first task, block the fourth). */
export const anchorScenarios = {
  // Plans only when asked to (a /todo command's turn comes after the same prompt, and only answers).
  "anchor-plan"(info) {
    const asked = shape(info).turnResults === 0 && info.lastText.includes("scenario:anchor-plan")
    return asked ? todo({ list: PLAN }) : { text: "Noted. Shall I start?" }
  },
  "anchor-parallel"(info) {
    if (shape(info).turnResults > 0) return { text: "Both noted. Shall I go on?" }
    return {
      toolCalls: [
        { name: "todo", id: CALLS[0], args: { op: "done", task: TASKS[0] } },
        { name: "todo", id: CALLS[1], args: { op: "block", task: TASKS[3], reason: "needs a fixture" } },
      ],
    }
  },
}

/** Runs on the main smoke host, which declares the `careful` agent (todo: ask). */
export async function proveAnchors({ host, check, need }) {
  const t0 = Date.now()
  const file = (id) => join(host.dirs.data, "plugin", "todo", `${id}.json`)
  const tasks = (id) =>
    existsSync(file(id))
      ? JSON.parse(readFileSync(file(id), "utf8")).list.flatMap((p) => p.tasks.map((t) => [t.text, t.status]))
      : []
  const status = (id, task) => tasks(id).find(([text]) => text === task)?.[1]

  // 1. Two /todo commands at once.
  const id = (await host.createSession()).id
  await host.turn(id, "scenario:anchor-plan Plan it.", { idleTimeoutMs: 150_000 })
  need("the plan is stored", status(id, TASKS[0]) === "in_progress")
  const removed = TASKS.at(-1)
  await Promise.all([
    host.runCommand(id, "todo", `rm "${removed}"`, { timeoutMs: 150_000 }),
    host.runCommand(id, "todo", `append ${ADDED}`, { timeoutMs: 150_000 }),
  ])
  await host.waitSettled(id, { timeoutMs: 60_000 })
  const users = (await host.listMessages(id)).filter((m) => m.info.role === "user")
  const own = (words) => users.find((m) => m.parts.some((p) => p.type === "text" && p.text?.includes(words)))
  const rm = own(`removed "${removed}"`)?.info.id
  const add = own(`"${ADDED}"`)?.info.id
  need("both commands ran and the host made a message for each", Boolean(rm && add && rm !== add))
  const carried = users
    .flatMap((m) => m.parts)
    .filter((p) => typeof p.metadata?.opencodeTodo?.command === "string")
  check(
    "the host keeps each command's mark in its message",
    carried.length === 2,
    `${carried.length} marked parts`,
  )
  const [first, second] = rm < add ? [rm, add] : [add, rm]
  const secondIsRm = second === rm
  await host.revert(id, second)
  check(
    "two /todo commands at once: an undo at the later command's message takes back that command's edit only",
    await until(
      () =>
        secondIsRm
          ? status(id, removed) !== undefined && status(id, ADDED) !== undefined
          : status(id, removed) === undefined && status(id, ADDED) === undefined,
      FOLLOW_MS,
    ),
    `${secondIsRm ? "rm" : "append"} message later; ${removed}: ${status(id, removed)}, ${ADDED}: ${status(id, ADDED)}`,
  )
  await host.revert(id, first)
  check(
    "...and an undo at the earlier one takes back both",
    await until(() => status(id, removed) !== undefined && status(id, ADDED) === undefined, FOLLOW_MS),
    `${status(id, removed)}, ${status(id, ADDED)}`,
  )
  await host.unrevert(id)
  check(
    "...and redo brings both back",
    await until(() => status(id, removed) === undefined && status(id, ADDED) !== undefined, FOLLOW_MS),
    `${status(id, removed)}, ${status(id, ADDED)}`,
  )

  // 2. Two todo calls in one reply, approved in reverse order: the later part's call finishes first.
  const par = id
  const since = host.events.length
  const asks = []
  const asked = (e) =>
    e.type === "permission.asked" && e.properties?.sessionID === par && e.properties?.permission === "todo"
  await host.sendMessageAsync(par, "scenario:anchor-parallel Both at once.", { agent: "careful" })
  need(
    "both calls wait for approval at once",
    await until(() => {
      asks.splice(0, asks.length, ...host.events.slice(since).filter(asked))
      return asks.length === 2
    }, 120_000),
  )
  const callOf = (e) => e.properties?.tool?.callID
  const byCall = CALLS.map((c) => asks.find((e) => callOf(e) === c))
  const [earlier, later] = byCall.every(Boolean) ? byCall : asks
  await host.api.post(`/permission/${later.properties.id}/reply`, { reply: "once" })
  need("the later call finished first", await until(() => status(par, TASKS[3]) === "blocked", FOLLOW_MS))
  await host.api.post(`/permission/${earlier.properties.id}/reply`, { reply: "once" })
  await host.waitIdle(par, { since, timeoutMs: 120_000 })
  await host.waitSettled(par, { timeoutMs: 60_000 })
  need("then the earlier", status(par, TASKS[0]) === "completed")
  const reply = (await host.listMessages(par)).find(
    (m) => m.parts.filter((p) => p.type === "tool" && p.tool === "todo").length === 2,
  )
  const partOf = (callID) => reply?.parts.find((p) => p.callID === callID)?.id
  const [p1, p2] = CALLS.map(partOf)
  need("the reply holds both calls, the first call's part first", Boolean(p1 && p2 && p1 < p2), `${p1} ${p2}`)
  await host.revert(par, reply.info.id, { partID: p2 })
  check(
    "parallel calls finishing out of order: an undo at the later call's part takes back that call only",
    await until(
      () => status(par, TASKS[3]) === "pending" && status(par, TASKS[0]) === "completed",
      FOLLOW_MS,
    ),
    `${TASKS[0]}: ${status(par, TASKS[0])}, ${TASKS[3]}: ${status(par, TASKS[3])}`,
  )
  await host.revert(par, reply.info.id, { partID: p1 })
  check(
    "...and an undo at the earlier call's part takes back both",
    await until(
      () => status(par, TASKS[3]) === "pending" && status(par, TASKS[0]) === "in_progress",
      FOLLOW_MS,
    ),
  )
  await host.unrevert(par)
  check(
    "...and redo brings both back",
    await until(
      () => status(par, TASKS[3]) === "blocked" && status(par, TASKS[0]) === "completed",
      FOLLOW_MS,
    ),
  )
  console.log(`   anchors section took ${((Date.now() - t0) / 1000).toFixed(1)}s`)
}
