#!/usr/bin/env node
// End-to-end check of the TUI plugin in the real OpenCode 2.0.15 TUI (tmux, 200x50) against a scripted model. The
// server runs as host2.mjs starts it (own HOME and XDG dirs, the plugin as a local folder with `server.js` and
// `tui.js`, no network) and the TUI attaches to it with `--server`, so the check reaches the same server over HTTP.
// Proven here: the TUI loads the plugin's TUI half from the server's plugin list; the model's todo calls show in
// the sidebar; the /todo dialog's Done, Append and Copy work at once with no model request (Copy through OSC 52,
// its one question kept in the plugin's TUI storage); at 100 and 80 columns the
// compact line above the prompt shows the progress, and a typed `/todo done …` changes it with no model request
// and a toast; the model is told of both edits once, on its next request; the server's /todo command run over
// HTTP answers in a toast (RPC `reply`) and a task the agent blocks is a toast (RPC `notice`); undo (revert stage
// over HTTP) shows the list before the revert point in the sidebar and the dialog with no model request, and
// clearing it the newest list; a list whose `show` text passes 65,536 characters is answered over RPC and in the
// reply event. Asserts on the sidebar's own columns. Exits non-zero on failure, after cleaning up.
// Run `npm run build` first (package script: `npm run sidebar-check:2`).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { HOST2_VERSION, hasHost2, startHost2 } from "./lib/host2.mjs"
import { startMockModel, userTexts } from "./lib/mock-model.mjs"
import { createReport } from "./lib/report.mjs"
import { hasTmux, SAMPLE_PLAN, SERVER_ENTRY, screenText, startTui, TUI_ENTRY } from "./lib/tui.mjs"
import { compactRow2, glyphColor, tuiScreen } from "./lib/tui-screen.mjs"
import { sleep } from "./lib/wait.mjs"

const started = Date.now()
// SIDEBAR_CHECK_SCREENS=<dir>: also save the screens at each step there, as text.
const screensDir = process.env.SIDEBAR_CHECK_SCREENS
function shot(name, screen) {
  if (screensDir) writeFileSync(join(screensDir, `${name}.txt`), `${screenText(screen ?? tui.capture())}\n`)
}
const report = createReport("sidebar-check2")
const { check, need } = report
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`
const since = () => secs(Date.now() - started)

for (const file of [TUI_ENTRY, SERVER_ENTRY]) {
  if (!existsSync(file)) {
    console.error(`sidebar-check2: ${file} is missing; run \`npm run build\` first.`)
    process.exit(1)
  }
}
if (!hasTmux()) {
  console.error("sidebar-check2: tmux is not installed (apt-get install -y tmux).")
  process.exit(1)
}
if (!hasHost2()) {
  console.error(
    `sidebar-check2: the OpenCode ${HOST2_VERSION} binary is missing; run \`npm ci\` on linux-x64.`,
  )
  process.exit(1)
}

/** The prompt after which the scripted model blocks a task (its own words: never the plugin's). */
const BLOCK_PROMPT = "Block the package until the review."
const BLOCKED = SAMPLE_PLAN[1].items[2]
/**
 * The scripted model, deciding from the request's structure and the check's own prompts: with no todo result yet it
 * plans (SAMPLE_PLAN), after one it marks the first task done, and after BLOCK_PROMPT it blocks the last task;
 * otherwise it answers with a short text.
 */
function conversation(body, info) {
  if (info.kind !== "main") return undefined
  if (!info.toolNames.includes("todo")) return { text: "The todo tool was not offered." }
  const todo = info.toolResults.filter((r) => r.name === "todo").length
  if (todo === 0) return { toolCalls: [{ name: "todo", args: { op: "init", list: SAMPLE_PLAN } }] }
  if (todo === 1)
    return { toolCalls: [{ name: "todo", args: { op: "done", task: SAMPLE_PLAN[0].items[0] } }] }
  if (todo === 2 && userTexts({ body }).some((t) => t.includes(BLOCK_PROMPT)))
    return {
      toolCalls: [{ name: "todo", args: { op: "block", task: BLOCKED, reason: "waiting on review" } }],
    }
  return { text: todo >= 3 ? "Blocked until the review." : "First task done; the parser is next." }
}

const MAX_DELAY_MS = 5000
// Colours of OpenCode 2.0.15's default theme, as the terminal receives them (text.feedback.<kind>.base, text.muted).
const THEME = { warning: "#f5a742", muted: "#808080", error: "#e06c75" }
const model = await startMockModel({ decide: conversation })
let host
let tui
const overall = setTimeout(() => {
  console.error(`sidebar-check2: overall time limit reached after ${since()}`)
  cleanup().finally(() => process.exit(1))
}, 8 * 60_000)

async function cleanup() {
  clearTimeout(overall)
  try {
    await tui?.stop()
  } catch {}
  try {
    await host?.stop()
  } catch {}
  try {
    await model.close()
  } catch {}
}

const { todoBlock, blockHas, compactHas, resize, openTodo, openEntry, typeTodo, pick, storedRecord } =
  tuiScreen(() => tui, { compact: compactRow2, pickTypes: true })
/** Waits until the session's execution has ended and nothing new started for a moment. */
async function turnDone(sessionID, since) {
  await host.waitEvent(
    (e) =>
      (e.type === "session.execution.succeeded" || e.type === "session.execution.failed") &&
      e.data?.sessionID === sessionID,
    { since, timeoutMs: 120_000 },
  )
  await host.settle(sessionID)
}
/** The first file under `dir` whose name `match` accepts, or undefined. */
function findFile(dir, match) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && match(entry.name)) return join(entry.parentPath, entry.name)
  return undefined
}
/** Model requests stay as they were for a while after a TUI or HTTP action. */
async function noModelRequest(label, before) {
  await sleep(2500)
  check(
    `${label}: no model request`,
    model.requests.length === before,
    `${model.requests.length - before} requests`,
  )
}

let sidebarCapture = ""
try {
  // No completion reminder after a scripted turn: every model request below is one the check caused.
  host = await startHost2({ modelUrl: model.url, env: { OPENCODE_TODO_REMINDERS: "false" } })
  tui = await startTui({ host2: host, recordOutput: true })
  await tui.waitReady({ timeoutMs: 120_000 })
  console.log(`OpenCode ${HOST2_VERSION} TUI ready after ${since()}`)

  // 0. The server lists the plugin with a TUI half (the TUI loads `<folder>/tui` of each active local or package
  // plugin the server reports with `features.tui`), and the TUI has loaded it: `/todo` is in the autocomplete twice
  // (the TUI's keymap command and the server's command).
  const listed = (await host.plugins()).find((p) => p.id === "opencode-todo")
  check(
    "the server lists the plugin as active, with a TUI half",
    listed?.state?.status === "active" && listed?.features?.tui === true,
    JSON.stringify({ state: listed?.state, features: listed?.features, source: listed?.source?.type }),
  )
  tui.type("/todo")
  const popup = await tui.waitFor((s) => s.text.filter((l) => /┃\s*\/todo\s{2,}\S/.test(l)).length >= 1, {
    timeoutMs: 20_000,
  })
  const rows = popup.text.filter((l) => /┃\s*\/todo\s{2,}\S/.test(l))
  shot("0-autocomplete", popup)
  need(
    "the TUI half is loaded: /todo is listed by the TUI's keymap and by the server",
    rows.length === 2,
    `${rows.length} rows: ${rows.map((r) => r.replace(/┃/g, "").trim()).join(" | ")}`,
  )
  tui.press("C-u")
  await sleep(300)
  tui.press("Escape")
  await tui.settle({ settleMs: 500 })

  // 1. The model's todo calls reach the sidebar.
  const since1 = host.events.length
  await tui.submit("Plan the work and start on it.")
  const t1 = Date.now()
  const first = await tui.waitFor(blockHas(/1\/5 done/), { timeoutMs: 120_000 })
  console.log(`sidebar showed the model's list ${secs(Date.now() - t1)} after the prompt`)
  const sessionID = (await host.api.get("/api/session"))[0]?.id
  need("the TUI's prompt made a session on the server", Boolean(sessionID))
  await turnDone(sessionID, since1)
  const settled = await tui.settle({ settleMs: 700 })
  const block1 = todoBlock(settled) ?? todoBlock(first)
  sidebarCapture = block1.lines.join("\n")
  shot("1-sidebar", settled)
  need("model turn used the todo tool (init, done, final text)", model.mainRequests().length === 3)
  check(
    "sidebar rows: phases with counts, open tasks with glyphs",
    block1.lines.join("\n") ===
      [
        "Todo  1/5 done",
        "Design 1/2",
        "  ▶ Write the parser",
        "Build 0/3",
        "  ○ Wire the sidebar",
        "  ○ Add the dialog",
        "  ○ Ship the package",
      ].join("\n"),
    block1.lines.join(" | "),
  )
  const inProgress = glyphColor(block1, "▶ Write the parser")
  const pending = glyphColor(block1, "○ Wire the sidebar")
  check(
    "in progress and pending in the theme's warning and muted colours",
    inProgress === THEME.warning && pending === THEME.muted,
    `▶ ${inProgress}, ○ ${pending}`,
  )
  const sidebar = tui.sidebar(settled)
  check(
    "block sits in the sidebar's columns",
    sidebar !== null && sidebar.left >= 150,
    `left=${sidebar?.left}`,
  )

  // 2. Bare /todo opens the dialog; choosing a task and Done changes the sidebar at once, no model request.
  const before2 = model.requests.length
  const dialog = await openTodo()
  shot("2-dialog", dialog)
  check(
    "bare /todo opens the dialog (list actions, tasks grouped by phase)",
    /Todo\s+1\/5 done/.test(screenText(dialog)) && /Build 0\/3/.test(screenText(dialog)),
  )
  await pick("Wire the sidebar")
  shot("3-actions", await tui.waitFor(/Choose an action/, { timeoutMs: 10_000 }))
  const tDone = await pick("Done")
  const after = await tui.waitFor(blockHas(/2\/5 done/), { timeoutMs: 10_000 })
  const doneDelay = Date.now() - tDone
  shot("4-after-done", after)
  check(
    `dialog Done: the sidebar changed within ${MAX_DELAY_MS / 1000} s`,
    doneDelay <= MAX_DELAY_MS,
    `${doneDelay} ms`,
  )
  check(
    "dialog Done: the task left the open rows",
    !todoBlock(after).lines.some((l) => l.includes("Wire the sidebar")) &&
      /Build 1\/3/.test(todoBlock(after).lines.join("\n")),
    todoBlock(after).lines.join(" | "),
  )
  await tui.waitFor(/"Wire the sidebar": pending → done/, { timeoutMs: 10_000 })
  check("dialog Done: a toast says the change", true)
  await noModelRequest("dialog Done", before2)
  const stored = storedRecord()
  check(
    "the store holds the change and a note for the model's next request",
    stored?.list?.[1]?.tasks?.[0]?.status === "completed" && (stored?.edits?.length ?? 0) === 1,
    stored ? `edits=${stored.edits?.length}` : "no record",
  )

  // 3. At 100 and 80 columns the sidebar is gone and the compact line above the prompt shows the progress; a typed
  // verb at 80 columns changes it, with a toast and no model request.
  for (const cols of [100, 80]) {
    await resize(cols)
    const narrow = await tui.waitFor(compactHas(/▶ Write the parser · 2\/5$/), { timeoutMs: 15_000 })
    shot(`5-compact-${cols}`, narrow)
    check(
      `${cols} columns: no sidebar, the compact line on one row above the prompt`,
      tui.sidebar(narrow) === null && compactRow2(narrow).text.length <= cols,
      JSON.stringify(compactRow2(narrow).text.trim()),
    )
  }
  const before3 = model.requests.length
  const tTyped = await typeTodo("done Add the dialog")
  const typed = await tui.waitFor(compactHas(/· 3\/5$/), { timeoutMs: 10_000 })
  const typedDelay = Date.now() - tTyped
  shot("6-typed-80", typed)
  check(
    `typed /todo done at 80 columns: the compact line changed within ${MAX_DELAY_MS / 1000} s`,
    typedDelay <= MAX_DELAY_MS,
    `${typedDelay} ms`,
  )
  await tui.waitFor(/"Add the dialog": pending → done/, { timeoutMs: 10_000 })
  check("typed /todo done: a toast says the change", true)
  await noModelRequest("typed /todo done", before3)
  await resize(200)
  await tui.waitFor(blockHas(/3\/5 done/), { timeoutMs: 15_000 })

  // 4. The model is told of both edits once, on its next request.
  const since4 = host.events.length
  const before4 = model.mainRequests().length
  await tui.submit("What changed?")
  await turnDone(sessionID, since4)
  const told = model.mainRequests().slice(before4)
  const note = (req) =>
    userTexts(req).some((t) => t.includes("Wire the sidebar") && t.includes("Add the dialog"))
  check(
    "the next request tells the model of the dialog's and the typed edit",
    told.length === 1 && note(told[0]),
    `${told.length} requests`,
  )

  // 5. The server's /todo run over HTTP answers in a toast (RPC reply) and reaches the sidebar.
  await host.command(sessionID, "todo", "done Write the parser")
  const replied = await tui.waitFor(/"Write the parser": in progress → done/, { timeoutMs: 10_000 })
  shot("7-reply-toast", replied)
  check("the server's /todo (HTTP): its reply is a toast in the TUI", true)
  await tui.waitFor(blockHas(/4\/5 done/), { timeoutMs: 10_000 })
  check("the server's /todo (HTTP): the sidebar shows its change", true)

  // 6. A task the agent blocks: a toast (RPC notice) and the blocked row with its reason.
  const since6 = host.events.length
  await tui.submit(BLOCK_PROMPT)
  const noticed = await tui.waitFor(/The agent blocked a task/, { timeoutMs: 60_000 })
  shot("8-notice-toast", noticed)
  check(
    "the agent blocks a task: a toast names it and its reason",
    /"Ship the package": waiting on review/.test(screenText(noticed).replace(/\s*┃\s*/g, " ")),
  )
  await turnDone(sessionID, since6)
  const blocked = await tui.waitFor(blockHas(/4\/5 done, 1 blocked/), { timeoutMs: 10_000 })
  const block6 = todoBlock(blocked)
  check(
    "the sidebar shows the blocked row with its reason, in the error colour",
    block6.lines.some((l) => l.startsWith("  ⊘ Ship the package — waiting")) &&
      glyphColor(block6, "⊘ Ship the package") === THEME.error,
    `${block6.lines.find((l) => l.includes("Ship the package"))} ${glyphColor(block6, "⊘ Ship the package")}`,
  )

  // 7. Undo over HTTP (revert stage at "What changed?"): the list before it, with no model request; then the newest.
  const messages = await host.messages(sessionID)
  const second = messages.filter((m) => m.type === "user")[1]?.id
  need("the session has its second prompt", Boolean(second), `${messages.length} messages`)
  const before7 = model.requests.length
  const tRevert = Date.now()
  await host.revertStage(sessionID, second)
  const reverted = await tui.waitFor(blockHas(/^Todo\s+3\/5 done$/m), { timeoutMs: 15_000, intervalMs: 50 })
  const revertDelay = Date.now() - tRevert
  shot("9-reverted", reverted)
  check(
    `undo: the sidebar shows the list before the revert point within ${MAX_DELAY_MS / 1000} s`,
    revertDelay <= MAX_DELAY_MS && todoBlock(reverted).lines.some((l) => l.includes("▶ Write the parser")),
    `${revertDelay} ms; ${todoBlock(reverted).lines.join(" | ")}`,
  )
  const revertedDialog = await openTodo()
  shot("9b-reverted-dialog", revertedDialog)
  check("undo: the /todo dialog shows the same list", /Todo\s+3\/5 done/.test(screenText(revertedDialog)))
  tui.press("Escape")
  await sleep(800)
  const tClear = Date.now()
  await host.revertClear(sessionID)
  await tui.waitFor(blockHas(/4\/5 done, 1 blocked/), { timeoutMs: 15_000, intervalMs: 50 })
  const clearDelay = Date.now() - tClear
  check(
    `redo (revert cleared): the sidebar shows the newest list within ${MAX_DELAY_MS / 1000} s`,
    clearDelay <= MAX_DELAY_MS,
    `${clearDelay} ms`,
  )
  await noModelRequest("undo and redo", before7)
  console.log(`undo: ${revertDelay} ms to the sidebar; redo: ${clearDelay} ms`)

  // 8. Append (a prompt dialog, then a select) and Copy (OSC 52; asked once, the answer kept in the plugin's TUI
  // storage, so the second Copy does not ask): no model request.
  const before8 = model.requests.length
  await openEntry("Append a task")
  await tui.waitFor(/What needs doing\?/, { timeoutMs: 10_000 })
  tui.type("Write the docs")
  await sleep(300)
  tui.press("Enter")
  await tui.waitFor(/Phase for "Write the docs"/, { timeoutMs: 10_000 })
  await pick("Build")
  const appended = await tui.waitFor(blockHas(/4\/6 done, 1 blocked/), { timeoutMs: 10_000 })
  check(
    "Append (prompt, then phase): the task is in the chosen phase",
    /Build 2\/4/.test(todoBlock(appended).lines.join("\n")) &&
      todoBlock(appended).lines.some((l) => l.includes("Write the docs")),
    todoBlock(appended).lines.join(" | "),
  )
  await sleep(800)
  await openEntry("Copy as Markdown")
  const asked = await tui.waitFor(/Sent to the terminal clipboard \(OSC 52\)/, { timeoutMs: 10_000 })
  shot("10-copy-asked", asked)
  check(
    "Copy sent the Markdown through OSC 52",
    /## Build[\s\S]*- \[>\] Write the docs/.test(tui.clipboard()),
    `${tui.clipboard().length} characters`,
  )
  await sleep(300)
  tui.press("Enter")
  await tui.waitFor(/Todo as Markdown \(select and copy\)/, { timeoutMs: 10_000 })
  await sleep(300)
  tui.press("Enter")
  await sleep(800)
  const keptFile = findFile(host.dirs.root, (name) => /opencode-todo.*kept/.test(name))
  await openEntry("Copy as Markdown")
  const again = await tui.waitFor(
    /Todo as Markdown \(select and copy\)|Sent to the terminal clipboard \(OSC 52\)/,
    { timeoutMs: 10_000 },
  )
  shot("10b-copy-again", again)
  check(
    "a second Copy does not ask again: the first answer is kept in the plugin's TUI storage",
    /Todo as Markdown \(select and copy\)/.test(screenText(again)) &&
      !/Show the Markdown to select/.test(screenText(again)) &&
      keptFile !== undefined,
    keptFile
      ? `${relative(host.dirs.root, keptFile)}: ${readFileSync(keptFile, "utf8").trim()}`
      : "no storage file",
  )
  await sleep(300)
  tui.press("Enter")
  await noModelRequest("Append and Copy", before8)

  // 9. A full list whose `show` text passes 65,536 characters: answered over RPC and in the reply event.
  const lines = Array.from({ length: 10 }, (_, p) => [
    `## Phase ${p + 1}`,
    ...Array.from({ length: 20 }, (_, i) => [
      `- [!] Task ${p * 20 + i + 1} ${"x".repeat(280)}`,
      `  - blocked: ${"why ".repeat(70).trim()}`,
    ]).flat(),
  ]).flat()
  writeFileSync(join(host.dirs.project, "TODO.md"), `${lines.join("\n")}\n`)
  await host.command(sessionID, "todo", "import --force")
  await tui.waitFor(blockHas(/0\/200 done, 200 blocked/), { timeoutMs: 15_000 })
  const shown = await host.api.call("POST", "/api/rpc/opencode-todo/run", {
    body: { input: { sessionID, text: "show" } },
    raw: true,
  })
  const shownText = shown.body?.output?.text ?? ""
  check(
    "RPC run show of a 200-task list: answered in full (over 65,536 characters)",
    shown.status === 200 && shownText.length > 65_536 && shownText.includes("Task 200"),
    `HTTP ${shown.status}, ${shownText.length} characters${shown.status === 200 ? "" : `: ${JSON.stringify(shown.body).slice(0, 200)}`}`,
  )
  const since8 = host.events.length
  await host.command(sessionID, "todo", "copy")
  const reply = await host
    .waitEvent((e) => e.type === "rpc.opencode-todo.reply", { since: since8, timeoutMs: 10_000 })
    .catch(() => undefined)
  check(
    "the server's /todo copy of that list: its reply event is published in full",
    (reply?.data?.text?.length ?? 0) > 65_536,
    reply ? `${reply.data.text.length} characters` : "no reply event",
  )
  await sleep(1500)
  check("the TUI is still running after that reply", !tui.paneDead())
  shot("11-big-reply", tui.capture())
} catch (error) {
  report.error(error.message.split("\n")[0])
  if (tui) {
    try {
      console.log(`--- screen at failure ---\n${screenText(tui.capture())}`)
    } catch {}
  }
} finally {
  await cleanup()
}

if (sidebarCapture)
  console.log(`\n--- sidebar block after the model's calls (200x50) ---\n${sidebarCapture}\n---`)
process.exit(report.finish(`${since()}, ${model.requests.length} model requests, OpenCode ${HOST2_VERSION}`))
