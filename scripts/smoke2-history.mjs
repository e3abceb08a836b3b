#!/usr/bin/env node
// Real-host proof on OpenCode 2.0.15 that the list follows the session's history: undo (revert stage), redo
// (revert clear) and commit, each seen in the stored record, in the `list` RPC the TUI reads and in what the model
// is shown (`todo view`), and again after a restart; a compaction leaves the list as it was, for the server that
// saw it and for one that loads the session afterwards; a fork starts from its source's list at the fork point,
// also on a server that never heard of the fork, and an undo inside the fork's copied turns takes back what those
// turns did; a typed /todo change (the TUI's RPC `run`) undone and redone is told to the model once on the next
// request, also when the prompt reaches the plugin before the redo does. Three servers run one after the other on
// one data folder: the plugin's, one without the plugin (what it does there reaches the plugin only through the
// host's answers), the plugin's again. Exits non-zero on failure.
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { hasHost2, OPENCODE2_BIN, startHost2 } from "./lib/host2.mjs"
import { startMockModel, textOf, toolResults, userTexts } from "./lib/mock-model.mjs"
import { createReport } from "./lib/report.mjs"
import { decide, isView, TASKS, taskMark } from "./lib/scenarios.mjs"
import { sleep } from "./lib/wait.mjs"

const report = createReport("smoke:2:history")
const { check, need } = report
const root = join(import.meta.dirname, "..")
if (!existsSync(join(root, "dist", "server.mjs"))) {
  console.error("smoke:2:history: dist/server.mjs is missing; run `npm run build` first.")
  process.exit(1)
}
if (!hasHost2()) {
  console.error(`smoke:2:history: no OpenCode 2 binary at ${OPENCODE2_BIN}; run \`npm ci\` first.`)
  process.exit(1)
}

/** How long the plugin gets to follow a host event (events reach plugins asynchronously). */
const FOLLOW_MS = 8000

// The summarizer of 2.0.15 must answer with its template's headings, or the host fails the compaction.
const summarizer = (body) =>
  /<template>/.test(textOf(body.messages.filter((m) => m.role === "user").at(-1)?.content ?? ""))
const model = await startMockModel({
  decide: (body, info) =>
    summarizer(body) ? { text: "## Objective\n- Scripted summary." } : decide(body, info),
})

/** The list's marks in task order: "c" completed, "i" in progress, "p" pending ("" for no list). */
const marksOf = (list) =>
  (Array.isArray(list) ? list : [])
    .flatMap((p) => p.tasks ?? [])
    .map((t) => String(t.status)[0])
    .join("")
/** The marks a `todo view` result shows the model. */
const viewMarks = (text) =>
  TASKS.map((t) => ({ "[x]": "c", "[>]": "i", "[ ]": "p" })[taskMark(text, t)] ?? "?").join("")
const PLANNED = "ipppp"
const ONE = "cippp"
const TWO = "ccipp"

let host
let dataDir
let projectDir
/** The sandboxes to remove at the end (the first holds the data folder every server uses). */
const roots = []
const started = Date.now()

async function boot(plugins) {
  const booted = await startHost2({
    modelUrl: model.url,
    ...(plugins ? { plugins } : {}),
    ...(dataDir ? { dataDir, projectDir } : {}),
    bootTimeoutMs: 120_000,
  })
  roots.push(booted.dirs.root)
  dataDir ??= booted.dirs.xdgData
  projectDir ??= booted.dirs.project
  return booted
}

const storedMarks = (id) => {
  const file = join(dataDir, "opencode", "plugin", "todo", `${id}.json`)
  return existsSync(file) ? marksOf(JSON.parse(readFileSync(file, "utf8")).list) : "(no record)"
}
/** The list the TUI gets over RPC. */
const rpcMarks = async (id) => {
  try {
    const answer = await host.rpc("opencode-todo", "list", { sessionID: id })
    return marksOf((answer?.output ?? answer)?.list)
  } catch (error) {
    return `(rpc failed: ${error.message.slice(0, 200)})`
  }
}
/** Polls until the RPC list and the record both show `want`; what they showed last. */
async function settlesAt(id, want, ms = FOLLOW_MS) {
  const deadline = Date.now() + ms
  for (;;) {
    const seen = { rpc: await rpcMarks(id), stored: storedMarks(id) }
    if ((seen.rpc === want && seen.stored === want) || Date.now() > deadline) return seen
    await sleep(150)
  }
}
function checkList(label, seen, want) {
  return check(
    label,
    seen.rpc === want && seen.stored === want,
    `rpc ${seen.rpc}, stored ${seen.stored}, want ${want}`,
  )
}
const turn = (id, step) => host.turn(id, `scenario:undo step:${step}`, { timeoutMs: 120_000 })
/** The marks the model saw in the `todo view` of one turn. */
async function viewIn(id) {
  const since = model.requests.length
  await turn(id, "view")
  const views = model.requests.slice(since).flatMap((r) => toolResults(r).filter(isView))
  return views.length > 0 ? viewMarks(views.at(-1)) : "(no view)"
}
const userIds = async (id) => (await host.messages(id)).filter((m) => m.type === "user").map((m) => m.id)

async function planned(id) {
  await turn(id, "init")
  await turn(id, "done1")
  await turn(id, "done2")
  return userIds(id)
}

try {
  // ---- Server 1, with the plugin.
  host = await boot()
  console.log(`OpenCode ${host.version} ready in ${host.timings.readyMs} ms`)

  // Undo, redo, undo, commit.
  const s = (await host.createSession()).id
  const users = await planned(s)
  need("plan, done, done: the list is stored", storedMarks(s) === TWO, storedMarks(s))
  const turnsBefore = model.requests.length
  await host.revertStage(s, users[2])
  checkList("undo (revert stage): the list before the undone turn", await settlesAt(s, ONE), ONE)
  check(
    "...and the plugin started no turn (one would commit the undo)",
    model.requests.length === turnsBefore,
  )
  await host.revertClear(s)
  checkList("redo (revert clear): the newest list again", await settlesAt(s, TWO), TWO)
  await host.revertStage(s, users[2])
  await host.revertCommit(s)
  checkList("undo committed: the list before the removed turn", await settlesAt(s, ONE), ONE)
  check("...and the model is shown that list", (await viewIn(s)) === ONE)

  // A typed /todo change (the TUI's RPC `run`), an undo to before it and a redo: the model is told of the change
  // once, whether the redo reached the plugin before the prompt or the prompt came first.
  const edited = (await host.createSession()).id
  await turn(edited, "init")
  const told = async (task, from) => {
    const requests = model.requests.slice(from).filter((q) => !summarizer(q.body))
    const notices = requests[0]
      ? userTexts(requests[0]).filter(
          (t) => t.includes("changed the todo list") && t.includes(`"${task}": pending → done`),
        )
      : []
    return { count: notices.length, requests: requests.length }
  }
  const typed = async (task) => {
    const ran = await host.rpc("opencode-todo", "run", { sessionID: edited, text: `done "${task}"` })
    need(`typed /todo done "${task}" over RPC`, (ran?.output ?? ran)?.ok === true, JSON.stringify(ran))
  }
  await typed(TASKS[1])
  const firstEdit = "icppp"
  checkList("a typed /todo change (RPC run) is stored", await settlesAt(edited, firstEdit), firstEdit)
  await host.revertStage(edited, (await userIds(edited))[0])
  checkList("an undo to before the plan and the change: no list", await settlesAt(edited, ""), "")
  let from = model.requests.length
  await host.revertClear(edited)
  await turn(edited, "view")
  const raced = await told(TASKS[1], from)
  check(
    "a prompt sent at once after the redo: the model is told of the change once",
    raced.count === 1,
    `${raced.count} notices in the first of ${raced.requests} requests`,
  )
  checkList(
    "...and the list is the redone one, with the change",
    await settlesAt(edited, firstEdit),
    firstEdit,
  )
  await typed(TASKS[2])
  const secondEdit = "iccpp"
  await host.revertStage(edited, (await userIds(edited))[1])
  checkList("an undo to before the second change", await settlesAt(edited, firstEdit), firstEdit)
  await host.revertClear(edited)
  checkList("a redo brings the change back", await settlesAt(edited, secondEdit), secondEdit)
  from = model.requests.length
  await turn(edited, "view")
  const followed = await told(TASKS[2], from)
  check(
    "a prompt after the redo was followed: the model is told of the change once",
    followed.count === 1,
    `${followed.count} notices in the first of ${followed.requests} requests`,
  )

  // A fork before the third prompt, and an undo inside its copied turns.
  const src = (await host.createSession()).id
  const srcUsers = await planned(src)
  const fork = (await host.fork(src, srcUsers[2])).id
  checkList("a fork starts from its source's list at the fork point", await settlesAt(fork, ONE), ONE)
  const forkUsers = await userIds(fork)
  need(
    "the fork holds copies of the two turns before the fork point",
    forkUsers.length === 2,
    forkUsers.join(" "),
  )
  await host.revertStage(fork, forkUsers[1])
  checkList(
    "an undo inside the fork's copied turns takes back what they did",
    await settlesAt(fork, PLANNED),
    PLANNED,
  )
  await host.revertClear(fork)
  checkList("...and a redo brings the fork's list back", await settlesAt(fork, ONE), ONE)
  check("the source keeps its own list", (await settlesAt(src, TWO)).rpc === TWO)

  // A compaction of the source.
  const eventsBefore = host.events.length
  const requestsBefore = model.requests.length
  const compacted = (await host.compact(src)).id
  await host.waitEvent(
    (e) =>
      e.type.startsWith("session.compaction.") &&
      e.type !== "session.compaction.started" &&
      e.type !== "session.compaction.delta" &&
      e.data?.sessionID === src,
    { since: eventsBefore, timeoutMs: 60_000 },
  )
  await host.settle(src)
  const kinds = (await host.context(src)).map((m) => m.type)
  need(
    "the host compacted the session (its context starts at the compaction)",
    kinds[0] === "compaction" &&
      (await host.messages(src)).some((m) => m.id === compacted && m.status === "completed"),
    kinds.join(" "),
  )
  checkList("after a compaction the list is as it was", await settlesAt(src, TWO), TWO)
  const summaries = model.requests.slice(requestsBefore).filter((r) => summarizer(r.body))
  check(
    "the summarizer's request carries the list (to keep in its summary)",
    summaries.length > 0 &&
      summaries.every((r) => {
        const input = r.body.messages.map((m) => textOf(m.content)).join("\n")
        return TASKS.every((t) => input.includes(t))
      }),
    `${summaries.length} summarizer requests`,
  )
  const afterCompaction = model.requests.length
  await turn(src, "view")
  const toldOnce = model.requests
    .slice(afterCompaction)
    .filter((r) => userTexts(r).some((t) => /\bcompacted\b/i.test(t) && t.includes(TASKS[0]))).length
  check(
    "the model is told the list once after the compaction",
    toldOnce === 1,
    `told in ${toldOnce} requests`,
  )
  await host.stop({ keep: true })

  // ---- Server 2, without the plugin: what happens here the plugin learns only from the host's answers.
  host = await boot([])
  // (A fork of `s`: its context still shows the turns before the fork point, which a compacted source's does not.)
  const missed = (await host.fork(s, (await userIds(s))[2])).id
  await host.revertStage(s, users[1])
  await host.stop({ keep: true })

  // ---- Server 3, with the plugin again.
  host = await boot()
  checkList(
    "after a restart, a compacted session keeps its list (the `list` RPC)",
    await settlesAt(src, TWO, 3000),
    TWO,
  )
  check("...and the model is shown that list on the next prompt", (await viewIn(src)) === TWO)
  checkList("...and it stays stored", await settlesAt(src, TWO, 3000), TWO)
  checkList("an undo made while no plugin ran is found at load", await settlesAt(s, PLANNED), PLANNED)
  await host.revertClear(s)
  checkList("...and its redo is followed", await settlesAt(s, ONE), ONE)
  checkList(
    "a fork this plugin never heard of starts from its source's list at the fork point",
    await settlesAt(missed, ONE),
    ONE,
  )
  const missedUsers = await userIds(missed)
  await host.revertStage(missed, missedUsers[0])
  checkList("...and an undo of all its copied turns empties it", await settlesAt(missed, ""), "")
  await host.revertClear(missed)
  checkList("...and a redo brings it back", await settlesAt(missed, ONE), ONE)
} catch (error) {
  report.error(error instanceof Error ? error.message : String(error))
  if (host)
    console.log(
      host
        .log()
        .split("\n")
        .filter((l) => l.includes("opencode-todo"))
        .slice(-20)
        .join("\n"),
    )
} finally {
  await host?.stop({ keep: true }).catch(() => {})
  await model.close()
  for (const dir of roots) rmSync(dir, { recursive: true, force: true })
}
process.exit(report.finish(`OpenCode 2.0.15, ${Math.round((Date.now() - started) / 1000)} s`))
