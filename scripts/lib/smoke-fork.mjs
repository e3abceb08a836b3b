// Smoke proof that forks and sessions from elsewhere start with the right list, on the real host. A fork made
// at a message starts with the source's list as it was there, a /todo dialog edit made before that point
// included (the conversation does not show it, so the model is told once); after that the two lists are
// independent. A session exported with `opencode export` and imported with `opencode import` into a fresh
// data folder has its list rebuilt from its conversation. Every list is read as the model reads it: a
// `todo view` result.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeSandbox, removeSandbox, runCli, sandboxEnv } from "./host.mjs"
import { toolResults, userTexts } from "./mock-model.mjs"
import { isView, PLAN, shape, todo } from "./scenarios.mjs"

const DROPPED = "Add regression tests"
const DIFFERS = "differs from what the conversation above shows"

/** The scripted turns; each keyword is written by the test in the prompt that starts the turn. */
// Each turn ends asking the user, so no reminder starts another turn that would change the list.
export const forkScenarios = {
  "fork-plan"(info) {
    return shape(info).turnResults === 0 ? todo({ list: PLAN }) : { text: "Planned. Shall I start?" }
  },
  "fork-work"(info) {
    return shape(info).turnResults === 0
      ? todo({ op: "done", task: PLAN[0].items[0] })
      : { text: "Read it. Shall I go on?" }
  },
  "fork-view"(info) {
    return shape(info).turnResults === 0 ? todo({ op: "view" }) : { text: "Here it is. Shall I go on?" }
  },
  // In the fork: a change of its own, then a look at the list.
  "fork-diverge"(info) {
    const { turnResults } = shape(info)
    if (turnResults === 0) return todo({ op: "block", task: "Handle empty input", reason: "needs a fixture" })
    if (turnResults === 1) return todo({ op: "view" })
    return { text: "Blocked it. Shall I go on?" }
  },
  // In the source, after the fork: a change of its own, then a look.
  "fork-source"(info) {
    const { turnResults } = shape(info)
    if (turnResults === 0) return todo({ op: "done", task: PLAN[0].items[1] })
    if (turnResults === 1) return todo({ op: "view" })
    return { text: "Listed them. Shall I go on?" }
  },
}

/** The last `todo view` result the model received in a scenario's requests (it starts with a phase line). */
function lastView(requests) {
  const last = requests.at(-1)
  return (last ? toolResults(last) : []).findLast(isView) ?? ""
}

/**
 * The fork at a message, on the running host. Returns the source's id and the list its last view showed,
 * for the import proof.
 */
export async function proveFork({ host, model, kit, check, need, quiet }) {
  const started = Date.now()
  const source = (await host.createSession({ title: "Fork source" })).id
  // Turns end asking the user, so no reminder follows: a short quiet is enough.
  const turn = async (id, keyword, text) => {
    await host.turn(id, `scenario:${keyword} ${text}`, { idleTimeoutMs: 150_000 })
    await quiet(host, id, { quietMs: 1000 })
  }
  await turn(source, "fork-plan", "Plan the parser fix.")
  // The user drops a task in the /todo dialog: a change the conversation does not show.
  const dialog = await kit.dialogAction({
    dir: kit.todoDir(host.env),
    session: source,
    task: DROPPED,
    action: "drop",
  })
  need(
    "the dialog dropped a task in the source",
    dialog.list.some((p) => p.tasks.some((t) => t.text === DROPPED && t.status === "abandoned")),
  )
  await turn(source, "fork-work", "Start reading.")
  const messages = await host.listMessages(source)
  const forkPoint = messages.filter((m) => m.info.role === "user")[1]?.info.id
  need("the source's second prompt is the fork point", forkPoint !== undefined)

  const fork = await host.api.post(`/session/${source}/fork`, { messageID: forkPoint })
  check("the fork has no parent (the host marks subagents with one)", fork.parentID === undefined, fork.title)
  const beforeFork = model.requests.length
  await turn(fork.id, "fork-view", "Where were we?")
  const forkReqs = model.requests.slice(beforeFork).filter((r) => r.kind === "main")
  const forkView = lastView(forkReqs)
  check(
    "fork: view shows the list at the fork point, the dialog's drop included",
    forkView.includes(`[-] "${DROPPED}"`) && forkView.includes(`[>] "${PLAN[0].items[0]}"`),
    forkView.split("\n").slice(0, 4).join(" | "),
  )
  check(
    "fork: the model is told once that the list differs from its conversation",
    userTexts(forkReqs[0] ?? { body: { messages: [] } }).filter((t) => t.includes(DIFFERS)).length === 1 &&
      forkReqs.slice(1).every((r) => userTexts(r).filter((t) => t.includes(DIFFERS)).length <= 1),
  )

  const beforeDiverge = model.requests.length
  await turn(fork.id, "fork-diverge", "Block the empty input case.")
  const diverged = lastView(model.requests.slice(beforeDiverge).filter((r) => r.kind === "main"))
  const beforeSource = model.requests.length
  await turn(source, "fork-source", "Carry on.")
  const sourceView = lastView(model.requests.slice(beforeSource).filter((r) => r.kind === "main"))
  check(
    "the fork's change stays in the fork",
    diverged.includes('[!] "Handle empty input"') && !sourceView.includes('[!] "Handle empty input"'),
  )
  check(
    "the source's changes stay in the source",
    sourceView.includes(`[x] "${PLAN[0].items[0]}"`) &&
      sourceView.includes(`[x] "${PLAN[0].items[1]}"`) &&
      !diverged.includes(`[x] "${PLAN[0].items[0]}"`),
  )
  console.log(`   fork section took ${((Date.now() - started) / 1000).toFixed(1)}s`)
  return { source, sourceView }
}

/**
 * `opencode export` of the source, `opencode import` into a fresh data folder, a host on that folder: the
 * imported session's list is rebuilt from its conversation.
 */
export async function proveImport({ host, boot, model, check, quiet, source, sourceView }) {
  const started = Date.now()
  const exported = await host.exportSession(source)
  const fresh = makeSandbox({ projectDir: host.dirs.project })
  const file = join(fresh.dirs.tmp, "session.json")
  writeFileSync(file, JSON.stringify(exported))
  const out = await runCli(["import", file], {
    cwd: host.dirs.project,
    env: sandboxEnv(fresh.dirs),
    timeoutMs: 60_000,
  })
  check("opencode import took the session", out.includes(source), out.trim().split("\n").at(-1))
  const third = await boot({ dataDir: fresh.dirs.xdgData, projectDir: host.dirs.project })
  try {
    const before = model.requests.length
    await third.turn(source, "scenario:fork-view Where were we?", { idleTimeoutMs: 150_000 })
    await quiet(third, source, { quietMs: 1000 })
    const reqs = model.requests.slice(before).filter((r) => r.kind === "main")
    const view = lastView(reqs)
    check(
      "import: view shows the list rebuilt from the conversation",
      view !== "" && view === sourceView,
      view.split("\n").slice(0, 3).join(" | "),
    )
    check(
      "import: the model, whose conversation shows that list, is not told about it",
      reqs.every((r) => userTexts(r).every((t) => !t.includes(DIFFERS))),
    )
  } finally {
    await third.stop()
    removeSandbox(fresh.dirs)
  }
  console.log(`   import section took ${((Date.now() - started) / 1000).toFixed(1)}s`)
}
