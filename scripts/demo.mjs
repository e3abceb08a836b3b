#!/usr/bin/env node
// The README's main job: a real OpenCode session with the plugin against the bundled scripted
// model, no API key needed. The model plans a small fix in phases and works through part of it; the
// user drops a task (in the /todo dialog on 1.18; on OpenCode 2 as `/todo drop` run on the server over
// the plugin's RPC) and the model is told; the model stops early with work open, is reminded by the
// plugin, and finishes. Each step is printed as it happens, with the sidebar the user sees whenever it
// changes, then the figures and the next step. `--host=2` runs it on OpenCode 2.0.15 instead of 1.18.33
// (scripts/lib/demo-hosts.mjs holds what differs). The story's text comes from scripts/lib/demo-story.ts,
// bundled at start (scripts/lib/kit.mjs: Node 20 does not run TypeScript); the printed story is checked
// the same way on both hosts before the demo exits.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { DEMO_HOSTS } from "./lib/demo-hosts.mjs"
import { hasHost2 } from "./lib/host2.mjs"
import { loadKit } from "./lib/kit.mjs"
import { startMockModel, textOf } from "./lib/mock-model.mjs"
import { DEMO_AFTER_REMINDER, DEMO_PLAN, DEMO_USER_DROPS, decide } from "./lib/scenarios.mjs"
import { sleep } from "./lib/wait.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const SERVER_ENTRY = join(root, "dist", "server.mjs")
const PROMPT = "The parser crashes on empty input. Please fix it."

const args = process.argv.slice(2)
const hostArg = args.find((a) => a.startsWith("--host="))?.slice("--host=".length) ?? "1"
const unknown = args.filter((a) => !a.startsWith("--host="))
if (!(hostArg in DEMO_HOSTS) || unknown.length > 0) {
  console.error(
    "usage: npm run demo [-- --host=1|2]   (1: OpenCode 1.18.33, the default; 2: OpenCode 2.0.15)",
  )
  process.exit(2)
}
if (hostArg === "2" && !hasHost2()) {
  console.error(
    "OpenCode 2 is not installed here: its binary comes with npm ci on linux-x64 only (@opencode/cli-linux-x64-baseline). Run the demo on 1.18 with npm run demo.",
  )
  process.exit(2)
}
const { title, start } = DEMO_HOSTS[hostArg]

if (!existsSync(SERVER_ENTRY)) {
  console.log("Building the plugin first (npm run build)…")
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const kit = await loadKit()
const paint = process.stdout.isTTY && !process.env.NO_COLOR ? kit.COLOUR : kit.PLAIN
const printed = []
let story = kit.START
function print(lines) {
  for (const line of lines) {
    printed.push(kit.plainText(line))
    console.log(line)
  }
}
function tell(item) {
  const told = kit.tell(story, item, paint)
  story = told.state
  print(told.lines)
}

/** Every marker text of a request, each as one part. */
function pluginTexts(body) {
  const texts = []
  for (const m of body?.messages ?? []) {
    const parts = Array.isArray(m.content) ? m.content.map((p) => textOf([p])) : [textOf(m.content)]
    for (const t of parts) if (t.trimStart().startsWith(kit.MARKER)) texts.push(t)
  }
  return texts
}

let demoHost
let sessionID
const printedCalls = new Set()
let edited = false
let noticeWaited = false
let noticeFrom // plugin texts of the request the edit happened in; the next request's new one is the notice
let noticeText // the notice as the model got it
let finished = false

/**
 * The scripted model, with the demo's timing around it: before a request is answered, every tool
 * result it carries has been printed (so the story stays in order); after the model's second todo
 * result the user makes the edit; the next request shows the notice it carries.
 */
async function demoDecide(body, info) {
  if (info.kind === "main") {
    const ids = info.toolResults.map((r) => r.id)
    const deadline = Date.now() + 10_000
    while (ids.some((id) => !printedCalls.has(id)) && Date.now() < deadline) await sleep(50)
    if (noticeFrom) {
      const notice = pluginTexts(body).find((t) => !noticeFrom.includes(t))
      // The server reads the edit on its next hook; when the record was still locked then (a loaded
      // machine), it keeps the note stored and sends it with the request after: wait for that one too.
      if (notice) {
        noticeText = notice
        tell({ kind: "notice", text: notice })
        noticeFrom = undefined
      } else if (noticeWaited) {
        print(["", "  (neither of the model's next two requests carried a notice of the edit)"])
        noticeFrom = undefined
      } else {
        noticeWaited = true
        print(["", "  (the edit was read after this request was made: its notice goes with the next)"])
      }
    }
    const todoResults = info.toolResults.filter((r) => r.name === "todo").length
    if (!edited && todoResults === 2) {
      edited = true
      try {
        tell(await demoHost.userDrop(sessionID, DEMO_USER_DROPS))
        noticeFrom = pluginTexts(body)
      } catch (error) {
        // The story's check reports the missing step; the session goes on.
        print(["", `  (the user's edit failed: ${error instanceof Error ? error.message : error})`])
      }
    }
  }
  const reply = decide(body, info)
  if (reply === DEMO_AFTER_REMINDER.at(-1)) finished = true
  return reply
}

const started = Date.now()
const model = await startMockModel({ decide: demoDecide })
console.log(`Starting the real ${title} server with the plugin and a scripted local model…`)
demoHost = await start({ kit, modelUrl: model.url, serverEntry: SERVER_ENTRY })
const bootSeconds = (Date.now() - started) / 1000
let exitCode = 0
try {
  const session = await demoHost.host.createSession()
  sessionID = session.id
  const seen = new Set()
  const readParts = demoHost.partReader(session.id)
  let done = false

  // Tells each finished part once, in the order the host reports them.
  const printer = (async () => {
    while (!done) {
      for (const part of readParts()) {
        const key = part.id ?? part.callID
        if (key !== undefined && seen.has(key)) continue
        const item = kit.itemOfPart(part)
        if (!item) continue
        if (key !== undefined) seen.add(key)
        tell(item)
        if (part.callID) printedCalls.add(part.callID)
      }
      await sleep(50)
    }
  })()

  const sessionStarted = Date.now()
  tell({ kind: "user", text: PROMPT })
  await demoHost.turn(session.id, `scenario:demo ${PROMPT}`)
  // The reminder starts a second turn right after the first goes idle; the model's last reply ends it.
  const deadline = Date.now() + 150_000
  while (!finished && Date.now() < deadline) await sleep(100)
  await demoHost.quiet(session.id, model)
  const sessionSeconds = (Date.now() - sessionStarted) / 1000
  done = true
  await printer

  const { reminders, todoOutputs, finalList } = await demoHost.record(session.id)
  print(
    kit.closingLines(
      {
        mainRequests: model.requests.filter((r) => r.kind === "main").length,
        titleRequests: model.requests.filter((r) => r.kind !== "main").length,
        reminders,
        todoOutputs,
        sessionSeconds,
        bootSeconds,
      },
      hostArg,
    ),
  )
  const open = (finalList ?? [])
    .flatMap((p) => p.tasks)
    .filter((t) => t.status === "pending" || t.status === "in_progress")
  const problems = kit.storyProblems(
    printed.join("\n"),
    DEMO_PLAN.flatMap((p) => p.items),
    DEMO_PLAN.map((p) => p.phase),
  )
  if (reminders !== 1) problems.push(`expected one reminder, saw ${reminders}`)
  const toldTimes = model.requests.filter(
    (r) => r.kind === "main" && noticeText !== undefined && pluginTexts(r.body).includes(noticeText),
  ).length
  if (noticeText !== undefined && toldTimes !== 1)
    problems.push(`expected the model told of the edit in one request, it was in ${toldTimes}`)
  if (!finalList || open.length > 0) problems.push("expected every task closed at the end")
  if (problems.length > 0) {
    console.log(`\nThe demo did not go as scripted:\n${problems.map((p) => `  - ${p}`).join("\n")}`)
    exitCode = 1
  }
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.stack : error}`)
  exitCode = 1
} finally {
  await demoHost.stop().catch(() => {})
  await model.close()
}
process.exit(exitCode)
