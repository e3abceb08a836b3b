#!/usr/bin/env node
// End-to-end proof against the real OpenCode binary: boots `opencode serve` in a sandbox with
// the built plugin (dist/server.mjs) and a scripted model, and checks every session behaviour
// against what the model server received, the HTTP API and the stored list, never against the
// scripted replies. Exits non-zero on the first failed check group, after cleaning up.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { startHost } from "./lib/host.mjs"
import { loadKit } from "./lib/kit.mjs"
import { startMockModel, textOf, toolResults, userTexts } from "./lib/mock-model.mjs"
import { proveSteering } from "./lib/prompt-steering.mjs"
import { createReport } from "./lib/report.mjs"
import { decide, PLAN, scenarioOf, TASKS } from "./lib/scenarios.mjs"
import { anchorScenarios, proveAnchors } from "./lib/smoke-anchor.mjs"
import { proveCorrupt } from "./lib/smoke-corrupt.mjs"
import { proveHostFacts } from "./lib/smoke-facts.mjs"
import { forkScenarios, proveFork, proveImport } from "./lib/smoke-fork.mjs"
import {
  AGENTS,
  proveAsk,
  proveDeniedAgent,
  proveOpenAgents,
  proveResultStubs,
  proveStubs,
  speakingScenarios,
} from "./lib/smoke-speaking.mjs"
import { proveUndo } from "./lib/smoke-undo.mjs"
import { until, waitQuiet } from "./lib/wait.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const SERVER_ENTRY = join(root, "dist", "server.mjs")
const MARKER = "[todo plugin: automatic message, not written by the user]"
const report = createReport("smoke")
const { check, need } = report

if (!existsSync(SERVER_ENTRY)) {
  console.error("smoke: dist/server.mjs is missing; run `npm run build` first.")
  process.exit(1)
}

const model = await startMockModel({
  decide: (body, info) => {
    const keyword = scenarioOf(body)
    const own =
      info.kind === "main"
        ? (speakingScenarios[keyword] ?? forkScenarios[keyword] ?? anchorScenarios[keyword])
        : undefined
    return own ? own(info) : decide(body, info)
  },
})
const hosts = []
async function boot(extra = {}) {
  const host = await startHost({
    modelUrl: model.url,
    plugins: [SERVER_ENTRY],
    env: { OPENCODE_TODO_EAGER: "preferred", ...(extra.env ?? {}) },
    configExtra: { agent: AGENTS },
    bootTimeoutMs: 120_000,
    ...extra,
  })
  hosts.push(host)
  return host
}

/** Main requests the model received for a scenario (the keyword of the latest test-written prompt). */
function requestsOf(keyword, since = 0) {
  return model.requests.slice(since).filter((r) => r.kind === "main" && scenarioOf(r.body) === keyword)
}
const markerCount = (req) => userTexts(req).join("\n").split(MARKER).length - 1

const quiet = (host, id, options) => waitQuiet(host, model, id, options)

async function scenario(host, keyword, prompt = "Fix the parser bugs.") {
  const session = await host.createSession()
  await host.turn(session.id, `scenario:${keyword} ${prompt}`, { idleTimeoutMs: 150_000 })
  await quiet(host, session.id)
  return session.id
}

function storedList(host, id) {
  const file = join(host.dirs.data, "plugin", "todo", `${id}.json`)
  return existsSync(file)
    ? { file, text: readFileSync(file, "utf8"), record: JSON.parse(readFileSync(file, "utf8")) }
    : undefined
}

/** Stored user messages made only of plugin text: the reminders (a prelude rides on a real prompt). */
async function reminderMessages(host, id) {
  const messages = await host.listMessages(id)
  return messages.filter((m) => {
    const texts = m.parts.filter((p) => p.type === "text")
    return (
      m.info.role === "user" &&
      texts.length > 0 &&
      texts.every((p) => p.synthetic && p.text.startsWith(MARKER))
    )
  })
}

try {
  const t0 = Date.now()
  const host = await boot()
  console.log(`opencode ${host.url} booted in ${((Date.now() - t0) / 1000).toFixed(1)}s`)

  // 1. Registration: tool list, todowrite gone, skill listed, /todo command.
  console.log("1. registration")
  const planId = await scenario(host, "plan")
  const first = requestsOf("plan")[0]
  const toolNames = (first?.body.tools ?? []).map((t) => t.function?.name)
  check("todo is in the tools sent to the model", toolNames.includes("todo"))
  // The entry also exports OpenCode 2's `setup`; 1.18.33 must get exactly one of everything from it.
  const entry = (await import(SERVER_ENTRY)).default
  check(
    "the built entry exports { id, server, setup }",
    typeof entry?.server === "function" && typeof entry?.setup === "function",
  )
  check(
    "dual export: exactly one todo tool",
    toolNames.filter((n) => n === "todo").length === 1,
    toolNames.join(","),
  )
  check("todowrite is not", !toolNames.includes("todowrite"), toolNames.join(","))
  const system = (first?.body.messages ?? [])
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .join("\n")
  check(
    "todo-discipline is listed in the system prompt's skills",
    /<name>todo-discipline<\/name>/.test(system),
  )
  check(
    "dual export: exactly one todo-discipline skill entry",
    (system.match(/<name>todo-discipline<\/name>/g) ?? []).length === 1,
  )
  const commands = await host.listCommands()
  check(
    "/todo is in GET /command",
    commands.some((c) => c.name === "todo"),
  )
  check("dual export: exactly one /todo command", commands.filter((c) => c.name === "todo").length === 1)

  // 2. Persistence and a second process.
  console.log("2. persistence")
  const stored = storedList(host, planId)
  check(
    "init persisted the list",
    stored?.record.list.length === 2 && stored.record.list[1].tasks.length === 3,
  )
  // One prelude, not one per entry point: the dual export adds no second set of session messages.
  check("eager prelude reached the first request of a new session", markerCount(first) === 1)

  await proveSteering({ host, model, check })

  // 3. Completion reminder: once, then silent without progress.
  console.log("3. completion reminder")
  const stallId = await scenario(host, "stall")
  const stallReminders = await reminderMessages(host, stallId)
  check(
    "exactly one reminder after stopping with open work",
    stallReminders.length === 1,
    `${stallReminders.length}`,
  )
  const reminderText = stallReminders[0]?.parts.find((p) => p.synthetic)?.text ?? ""
  check(
    "the reminder lists the open tasks",
    TASKS.every((t) => reminderText.includes(t)),
  )
  check(
    "the reminder started a new turn",
    requestsOf("stall").length === 3,
    `${requestsOf("stall").length} requests`,
  )
  const progressId = await scenario(host, "progress")
  const progressReminders = await reminderMessages(host, progressId)
  check(
    "after progress it reminds again, up to the cap of 3",
    progressReminders.length === 3,
    `${progressReminders.length}`,
  )
  const afterProgress = storedList(host, progressId)?.record.list.flatMap((p) => p.tasks)
  check(
    "the reminded turns made progress in the store",
    afterProgress?.filter((t) => t.status === "completed").length === 3,
  )

  // 4. No reminder when asking, when everything is closed or blocked, after an abort.
  console.log("4. no reminder")
  const questionId = await scenario(host, "question")
  check("none when the last line asks the user", (await reminderMessages(host, questionId)).length === 0)
  const closedId = await scenario(host, "closed")
  check("none when all work is done or blocked", (await reminderMessages(host, closedId)).length === 0)
  const abortSession = await host.createSession()
  const sent = host.events.length
  await host.sendMessageAsync(abortSession.id, "scenario:abort Fix it.")
  await until(() => requestsOf("abort").length >= 2, 120_000, 200)
  await host.abort(abortSession.id)
  await host.waitIdle(abortSession.id, { since: sent, timeoutMs: 60_000 })
  await quiet(host, abortSession.id)
  check("none after the user aborts", (await reminderMessages(host, abortSession.id)).length === 0)

  // 6. Mid-run nudge after 12 edits.
  console.log("6. mid-run nudge")
  const nudgeId = await scenario(host, "nudge")
  const nudgeReqs = requestsOf("nudge")
  // Found by its words: the prelude before it may already be a stub (the model answered it with init).
  const nudgedAt = nudgeReqs.findIndex((r) =>
    userTexts(r).some((t) => t.includes("edits or commands since the todo list was last updated")),
  )
  check("a nudge reached the model after 12 shell commands", nudgedAt >= 0, `request ${nudgedAt}`)
  const bashBefore = nudgedAt >= 0 ? toolResults(nudgeReqs[nudgedAt]).length - 1 : -1
  check("...and not before the 12th", bashBefore >= 12, `${bashBefore} command results before it`)

  // 9. Speaking only when it helps: a denied agent, todo: ask, stale messages as stubs.
  console.log("9. only when it helps")
  const t9 = Date.now()
  const ctx9 = { host, model, check, requestsOf, reminderMessages, quiet }
  await proveDeniedAgent(ctx9)
  await proveOpenAgents(ctx9)
  await proveAsk(ctx9)
  let saved = 0
  let stubbed = 0
  let stubRequests = 0
  for (const [keyword, id] of [
    ["progress", progressId],
    ["stall", stallId],
    ["nudge", nudgeId],
  ]) {
    const stubs = await proveStubs(ctx9, keyword, id, keyword)
    saved += stubs.saved
    stubbed += stubs.stubbed
    stubRequests += stubs.requests
  }
  const results = proveResultStubs(ctx9, "progress", "progress")
  saved += results.saved
  stubbed += results.stubbed
  console.log(
    `   stubs saved ${saved} characters over ${stubRequests} requests of the progress, stall and nudge scenarios (${stubbed} stubs); section took ${((Date.now() - t9) / 1000).toFixed(1)}s`,
  )

  // 8. Bad calls return the core's errors and leave the stored list byte-identical.
  console.log("8. bad calls")
  const errorsSession = await host.createSession()
  const errorsId = errorsSession.id
  await host.turn(errorsId, "scenario:errors Try some calls.", { idleTimeoutMs: 150_000 })
  await quiet(host, errorsId)
  const errReqs = requestsOf("errors")
  const lastErr = errReqs.at(-1)
  const results8 = lastErr ? toolResults(lastErr) : []
  check(
    "unknown task: the core's error text",
    /^Error: .*"Deploy to production"/s.test(results8[1] ?? ""),
    results8[1],
  )
  check(
    "ambiguous shape: an error naming the accepted shapes",
    /^Error: /.test(results8[2] ?? "") && /op/.test(results8[2] ?? ""),
  )
  check(
    "duplicate: an error naming the duplicate",
    /^Error: .*"Handle empty input"/s.test(results8[3] ?? ""),
    results8[3],
  )
  const errStored = storedList(host, errorsId)
  check("the stored list is unchanged by the failing calls", errStored?.record.revision === 1)

  // The /todo command runs on the stored list and tells the model what changed, once.
  console.log("/todo command and user edits")
  const beforeCommand = model.requests.length
  await host.runCommand(closedId, "todo", 'rm "Publish the release"')
  await quiet(host, closedId)
  const commandReq = model.requests.slice(beforeCommand).find((r) => r.kind === "main")
  const commandText = commandReq ? (userTexts(commandReq).at(-1) ?? "") : ""
  check("/todo rm changed the stored list", storedList(host, closedId)?.record.list[0].tasks.length === 1)
  check("the model is told what the user removed", /removed "Publish the release"/.test(commandText))
  check("...with an explicit do-not-recreate", /Do not recreate/i.test(commandText))
  // An edit made by another process (the TUI) is queued in the store and delivered on the next request.
  const edited = storedList(host, closedId)
  edited.record.list[0].tasks.push({ text: "Tag the release", status: "pending" })
  edited.record.edits = [{ lines: ['added "Tag the release" to "Tasks" (pending)'], removed: [] }]
  edited.record.revision += 1
  writeFileSync(edited.file, JSON.stringify(edited.record))
  const beforeEdit = model.requests.length
  await host.turn(closedId, "scenario:view What changed?", { idleTimeoutMs: 150_000 })
  await quiet(host, closedId)
  const editReqs = model.requests.slice(beforeEdit).filter((r) => r.kind === "main")
  const editCopies = editReqs.map(
    (r) => userTexts(r).filter((t) => t.includes("Tag the release") && t.includes(MARKER)).length,
  )
  check("a user edit from another process reaches the model", editCopies[0] === 1, editCopies.join(","))
  check("...once: the queued note is consumed", storedList(host, closedId)?.record.edits.length === 0)

  // 9b. A record another program overwrites with garbage while the host runs keeps its list.
  console.log("9b. corrupt record")
  await proveCorrupt({
    host,
    model,
    check,
    quiet,
    id: closedId,
    tasks: ["Update the changelog", "Tag the release"],
  })

  // 10. The list follows /undo and /redo.
  console.log("10. undo and redo")
  const kit = await loadKit()
  const undo = await proveUndo({ host, model, kit, check })
  console.log(`   undo and redo took ${undo.seconds.toFixed(1)}s`)

  // 10c. Two /todo commands at once, and parallel todo calls finishing out of order, stay where they happened.
  console.log("10c. anchors under concurrency")
  await proveAnchors({ host, check, need })

  // 7. Compaction keeps the list; the list reaches the model once after it.
  console.log("7. compaction")
  const beforeCompaction = model.requests.length
  await host.summarize(planId)
  await quiet(host, planId)
  const summarizer = model.requests.slice(beforeCompaction).find((r) => r.kind === "compaction")
  const summaryInput = summarizer ? summarizer.body.messages.map((m) => textOf(m.content)).join("\n") : ""
  check(
    "the compaction request carries the list",
    TASKS.every((t) => summaryInput.includes(t)),
  )
  const afterCompaction = model.requests.length
  await host.turn(planId, "scenario:view Carry on.", { idleTimeoutMs: 150_000 })
  await quiet(host, planId)
  const post = requestsOf("view", afterCompaction)
  check("the first request after compaction carries the list", post.length > 0 && markerCount(post[0]) === 1)
  check(
    "...exactly once (later requests add no copy)",
    post.slice(1).every((r) => markerCount(r) <= 1),
    post.map(markerCount).join(","),
  )

  // 10. Forks and imports start with the right list.
  console.log("10. fork")
  const forked = await proveFork({ host, model, kit, check, need, quiet })

  // 2b and 5. A second process reads the list back; resume reminds once; no prelude on resume.
  console.log("2b/5. second process, resume")
  // The TUI queued an edit note that no server delivered before the restart.
  const queued = storedList(host, planId)
  queued.record.edits = [{ lines: ['added "Tag the release" to "Fix" (pending)'], removed: [] }]
  writeFileSync(queued.file, JSON.stringify(queued.record))
  await host.stop({ keep: true })
  hosts.length = 0
  const second = await boot({ dataDir: host.dirs.xdgData, projectDir: host.dirs.project })
  const beforeResume = model.requests.length
  await second.turn(planId, "scenario:view Where were we?", { idleTimeoutMs: 150_000 })
  await quiet(second, planId)
  const resumed = model.requests.slice(beforeResume).filter((r) => r.kind === "main")
  const viewResult = resumed.flatMap(toolResults).find((t) => t.includes('"Explore" ('))
  check(
    "a second opencode process reads the same list with view",
    TASKS.every((t) => viewResult?.includes(t)),
  )
  const lastUser = resumed[0] ? (userTexts(resumed[0]).at(-1) ?? "") : ""
  check(
    "resume: the list reaches the model with the first prompt",
    lastUser.includes(MARKER) && lastUser.includes(PLAN[0].items[0]),
  )
  check("resume: no eager prelude on a resumed session", !/lay out a phased plan/.test(lastUser))
  const resumeCopies = resumed.at(-1)
    ? userTexts(resumed.at(-1)).filter((t) => t.includes("restored")).length
    : 0
  check("resume: told once, not on every request", resumeCopies === 1, `${resumeCopies}`)
  const EDITED = "The user changed the todo list"
  check(
    "resume: the edit queued before the restart is spent by the resume notice",
    resumed.every((r) => !userTexts(r).some((t) => t.includes(EDITED))),
  )
  const beforeReinit = model.requests.length
  await second.turn(planId, "scenario:reinit Start over.", { idleTimeoutMs: 150_000 })
  await quiet(second, planId)
  const reinit = model.requests.slice(beforeReinit).filter((r) => r.kind === "main")
  check(
    "...and does not come back after the next todo update",
    reinit.length > 1 && reinit.every((r) => !userTexts(r).some((t) => t.includes(EDITED))),
    `${reinit.length} requests`,
  )
  await second.stop()

  console.log("10b. export and import")
  await proveImport({ host, boot, model, check, quiet, ...forked })

  // 11. The list follows the host's facts: a restart between undo and redo, two servers on one data
  // folder, a chain of forks never prompted.
  console.log("11. restart, two servers, fork chain")
  await proveHostFacts({ boot, model, kit, check, need })
} catch (error) {
  report.error(`smoke stopped: ${error instanceof Error ? error.stack : error}`)
} finally {
  for (const h of hosts) await h.stop().catch(() => {})
  await model.close()
}

process.exit(report.finish())
