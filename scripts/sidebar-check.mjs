#!/usr/bin/env node
// End-to-end check of the TUI plugin in the real OpenCode TUI (tmux, 200x50) against a scripted
// model. The model's todo calls show up in the sidebar. The /todo dialog changes the list at once
// with no model request: Done, Block with a reason, $EDITOR editing (and its parse-error path),
// Copy (asked once: the second Copy acts on the kept answer), Export, Import, Append. A typed
// `/todo <verb>` runs in the TUI too: no model request, a toast, one note for the model's next
// request; a typo costs nothing; autocomplete shows one `/todo` row. At 100 and 80 columns (no
// sidebar) the compact line shows the progress instead, as fast as the sidebar; ctrl+x b hides it
// under the overlay sidebar. At 160x45 with the earlier phases finished, the dialog opens at the work
// (the open tasks on its first screen, finished phases folded; choosing one unfolds it). The dialog's
// list actions are on its first screen with 9 and with 40 tasks. An $EDITOR save made while the list
// changed meanwhile keeps that change when the user edited nothing, and asks first when the user did.
// Two more short runs: the server's toasts (nudge, a blocked task, reminder, all done), and the TUI
// plugin without the server's. Undo and redo through the host's HTTP API: the sidebar and the dialog
// show the list as it was before the revert point with no model request (the delay is measured, at
// most 5 s), then the newest list. Asserts on the sidebar's own columns. Exits non-zero on failure,
// after cleaning up.
// Run `npm run build` first (package script: `npm run sidebar-check`).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, makeApi } from "./lib/host.mjs"
import { startMockModel } from "./lib/mock-model.mjs"
import { createReport } from "./lib/report.mjs"
import { hasTmux, SERVER_ENTRY, screenText, startTui, TUI_ENTRY, todoConversation } from "./lib/tui.mjs"
import { compactRow, glyphColor, tuiScreen } from "./lib/tui-screen.mjs"
import { sleep } from "./lib/wait.mjs"

const started = Date.now()
// SIDEBAR_CHECK_SCREENS=<dir>: also save the screens at each step there, as text.
const screensDir = process.env.SIDEBAR_CHECK_SCREENS
function shot(name, screen) {
  if (screensDir) writeFileSync(join(screensDir, `${name}.txt`), `${screenText(screen ?? tui.capture())}\n`)
}
const report = createReport("sidebar-check")
const { check, need } = report
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`
const since = () => secs(Date.now() - started)

for (const file of [TUI_ENTRY, SERVER_ENTRY]) {
  if (!existsSync(file)) {
    console.error(`sidebar-check: ${file} is missing; run \`npm run build\` first.`)
    process.exit(1)
  }
}
if (!hasTmux()) {
  console.error("sidebar-check: tmux is not installed (apt-get install -y tmux).")
  process.exit(1)
}

// Theme colours of the default theme ("opencode", dark), as the terminal receives them.
const THEME = { warning: "#f5a742", muted: "#808080", success: "#7fd88f", error: "#e06c75", text: "#eeeeee" }

const model = await startMockModel({ decide: todoConversation() })
let tui
let api
let editorMode
const scratch = mkdtempSync(join(tmpdir(), "octodo-check-"))
const overall = setTimeout(() => {
  console.error(`sidebar-check: overall time limit reached after ${since()}`)
  cleanup().finally(() => process.exit(1))
}, 12 * 60_000)

async function cleanup() {
  clearTimeout(overall)
  try {
    await tui?.stop()
  } catch {}
  try {
    await model.close()
  } catch {}
  rmSync(scratch, { recursive: true, force: true })
}

const MAX_COMPACT_DELAY_MS = 5000
const compactDelays = []
const MAX_REVERT_DELAY_MS = 5000

const {
  todoBlock,
  blockHas,
  compactHas,
  resize,
  sidebarState,
  openTodo,
  typeTodo,
  pick,
  openEntry,
  storedRecord,
} = tuiScreen(() => tui)

let sidebarCapture = ""
let sidebarFinal = ""
try {
  // A scripted editor for the Edit entry; what it does is chosen by the mode file.
  editorMode = join(scratch, "editor-mode")
  const editor = join(scratch, "fake-editor.sh")
  writeFileSync(
    editor,
    [
      "#!/bin/sh",
      `mode=$(cat '${editorMode}' 2>/dev/null)`,
      'if [ "$mode" = good ]; then sed -i "s/^- \\[ \\] Add the dialog/- [x] Add the dialog/" "$1"; fi',
      'if [ "$mode" = bad ]; then printf "%s\\n" "- [?] not a status" >> "$1"; fi',
      "exit 0",
      "",
    ].join("\n"),
  )
  chmodSync(editor, 0o755)
  // --port: the TUI's own server listens there, so the check can revert through the HTTP API.
  const port = await freePort()
  tui = await startTui({
    modelUrl: model.url,
    serverPlugins: [SERVER_ENTRY],
    tuiPlugins: [TUI_ENTRY],
    args: ["--port", String(port)],
    recordOutput: true,
    // No completion reminder after the scripted turn: every model request below is one we caused.
    env: { OPENCODE_TODO_REMINDERS: "false", EDITOR: editor, VISUAL: "" },
  })
  await tui.waitReady({ timeoutMs: 120_000 })
  api = makeApi(`http://127.0.0.1:${port}`, tui.dirs.project)
  console.log(`TUI ready after ${since()}`)

  // 1. The model's todo calls reach the sidebar.
  await tui.submit("Plan the work and start on it.")
  const t1 = Date.now()
  const first = await tui.waitFor(blockHas(/1\/5 done/), { timeoutMs: 240_000 })
  console.log(`sidebar showed the model's list ${secs(Date.now() - t1)} after the prompt`)
  // Let the turn finish (final text painted, no "esc interrupt" in the footer) and settle.
  const idleScreen = await tui.waitFor(
    (s) => /the parser is next/.test(s.text.join("\n")) && !/esc interrupt/.test(s.text.join("\n")),
    { timeoutMs: 120_000 },
  )
  await sleep(2000)
  const settled = await tui.settle({ settleMs: 700 })
  const block1 = todoBlock(settled) ?? todoBlock(idleScreen) ?? todoBlock(first)
  sidebarCapture = block1.lines.join("\n")
  shot("1-sidebar", settled)
  const mainCalls = model.mainRequests().length
  need(
    "model turn used the todo tool (init, done, final text)",
    mainCalls === 3,
    `${mainCalls} main requests`,
  )
  need(
    "sidebar header counts the list",
    /^Todo\s+1\/5 done$/.test(block1.lines[0] ?? ""),
    JSON.stringify(block1.lines[0]),
  )
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
  check(
    "in progress and pending differ by theme colour",
    glyphColor(block1, "▶ Write the parser") === THEME.warning &&
      glyphColor(block1, "○ Wire the sidebar") === THEME.muted,
    `▶ ${glyphColor(block1, "▶ Write the parser")}, ○ ${glyphColor(block1, "○ Wire the sidebar")}`,
  )
  const sidebar = tui.sidebar(settled)
  check(
    "block sits in the sidebar's columns",
    sidebar !== null && sidebar.left >= 150,
    `left=${sidebar?.left}`,
  )

  // 2. Bare /todo opens the dialog; choosing a task and Done changes the sidebar at once, no model call.
  const requestsBefore = model.requests.length
  const dialog = await openTodo()
  shot("2-dialog", dialog)
  check(
    "bare /todo + Enter opens the dialog (tasks grouped by phase, list entries)",
    /Todo\s+1\/5 done/.test(screenText(dialog)) && /Build 0\/3/.test(screenText(dialog)),
  )
  await pick("Wire the sidebar")
  shot("3-actions", await tui.waitFor(/Choose an action/, { timeoutMs: 10_000 }))
  const t2 = await pick("Done")
  const after = await tui.waitFor(blockHas(/2\/5 done/), { timeoutMs: 10_000 })
  const reaction = Date.now() - t2
  shot("4-after-done", after)
  const block2 = todoBlock(after)
  check("sidebar changed at once after Done", reaction < 5000, `${reaction} ms`)
  check(
    "the chosen task left the open rows",
    !block2.lines.some((l) => l.includes("Wire the sidebar")) && /Build 1\/3/.test(block2.lines.join("\n")),
    block2.lines.join(" | "),
  )
  await sleep(3000)
  check(
    "no model request for the TUI edit",
    model.requests.length === requestsBefore,
    `${requestsBefore} before, ${model.requests.length} after`,
  )
  const stored = storedRecord()
  check(
    "store holds the change and a pending note for the model",
    stored?.list?.[1]?.tasks?.[0]?.status === "completed" && (stored?.edits?.length ?? 0) === 1,
    stored ? `edits=${stored.edits?.length}` : "no record",
  )

  // The toast follows the store's confirmation, a moment after the sidebar.
  const toasted = await tui.waitFor(/"Wire the sidebar": pending → done/, { timeoutMs: 10_000 })
  check(
    "the Done toast says the change once",
    !/Marked "Wire the sidebar"/.test(screenText(toasted)),
    (screenText(toasted).match(/"Wire the sidebar": pending → done/) ?? [""])[0],
  )

  // 3. At 100 columns the sidebar is gone and the compact line shows the progress; Block with a reason
  // (prompt dialog) reaches it as fast as the sidebar. Back at 200 the sidebar shows the block.
  await resize(100)
  const at100 = await tui.waitFor(compactHas(/▶ Write the parser · 2\/5$/), { timeoutMs: 15_000 })
  shot("4b-compact-100", at100)
  check(
    "100 columns: no sidebar, the compact line on one row",
    tui.sidebar(at100) === null && compactRow(at100).text.length <= 100,
    JSON.stringify(compactRow(at100).text.trim()),
  )
  await openTodo()
  await pick("Ship the package")
  await tui.waitFor(/Choose an action/, { timeoutMs: 10_000 })
  await pick("Block")
  await tui.waitFor(/Why is "Ship the package" blocked\?/, { timeoutMs: 10_000 })
  tui.type("waiting on review")
  await sleep(300)
  const tBlock = Date.now()
  tui.press("Enter")
  const blocked100 = await tui.waitFor(compactHas(/· 2\/5, 1 blocked$/), { timeoutMs: 10_000 })
  compactDelays.push(["100 columns, Block", Date.now() - tBlock])
  shot("4c-compact-100-blocked", blocked100)
  // ctrl+x b opens the sidebar as an overlay: the compact line steps aside while it shows.
  tui.press("C-x", "b")
  const overlay = await tui.waitFor(
    (s) => /Todo\s+2\/5 done, 1 blocked/.test(screenText(s)) && !compactRow(s),
    {
      timeoutMs: 10_000,
    },
  )
  shot("4d-overlay-100", overlay)
  tui.press("C-x", "b")
  await tui.waitFor(compactHas(/· 2\/5, 1 blocked$/), { timeoutMs: 10_000 })
  check("ctrl+x b: the overlay sidebar shows the list and the compact line steps aside, then returns", true)
  // Hidden with ctrl+x b, the sidebar stays hidden at 200 columns: the compact line stays too.
  await resize(200)
  const hidden200 = await tui.waitFor(compactHas(/· 2\/5, 1 blocked$/), { timeoutMs: 10_000 })
  check("200 columns, sidebar hidden by the user: the compact line stays", tui.sidebar(hidden200) === null)
  await sidebarState(true)
  const blocked = await tui.waitFor(blockHas(/2\/5 done, 1 blocked/), { timeoutMs: 10_000 })
  const block3 = todoBlock(blocked)
  check(
    "Block… with a reason: blocked row with its reason, in the error colour",
    block3.lines.some((l) => l.startsWith("  ⊘ Ship the package — waiting")) &&
      glyphColor(block3, "⊘ Ship the package") === THEME.error,
    block3.lines.find((l) => l.includes("Ship the package")),
  )
  check("200 columns: the sidebar shows, the compact line does not", compactRow(blocked) === undefined)

  // 4. Edit as Markdown in $EDITOR: a good edit applies, a bad one keeps the list and names the line.
  // The good edit runs at 80 columns, where the compact line shows the change.
  await resize(80)
  await sidebarState(false)
  const at80 = await tui.waitFor(compactHas(/▶ Write the parser · 2\/5, 1 blocked$/), { timeoutMs: 15_000 })
  const labelRow = at80.text.findLastIndex((l) => /┃\s+Build · m Mock/.test(l))
  check(
    "80 columns: the compact line on its own row, below the prompt and its agent/model label",
    compactRow(at80).text.length <= 80 && labelRow >= 0 && labelRow < compactRow(at80).y,
    `${JSON.stringify(compactRow(at80).text.trim())}; label row ${labelRow}: ${JSON.stringify(at80.text[labelRow]?.trim())}`,
  )
  writeFileSync(editorMode, "good")
  await openTodo()
  const tEdit = await pick("Edit as Markdown")
  const edited80 = await tui.waitFor(compactHas(/· 3\/5, 1 blocked$/), { timeoutMs: 15_000 })
  compactDelays.push(["80 columns, $EDITOR save", Date.now() - tEdit])
  shot("5a-compact-80", edited80)
  for (const [what, ms] of compactDelays) console.log(`compact line updated ${ms} ms after Enter (${what})`)
  check(
    `compact line updates within ${MAX_COMPACT_DELAY_MS / 1000} s of a change`,
    compactDelays.every(([, ms]) => ms <= MAX_COMPACT_DELAY_MS),
    compactDelays.map(([what, ms]) => `${what}: ${ms} ms`).join(", "),
  )
  await resize(200)
  await sidebarState(true)
  const edited = await tui.waitFor(blockHas(/3\/5 done/), { timeoutMs: 15_000 })
  check("$EDITOR edit applied", !todoBlock(edited).lines.some((l) => l.includes("Add the dialog")))
  writeFileSync(editorMode, "bad")
  await openEntry("Edit as Markdown")
  const bad = await tui.waitFor(/Reopen the editor/, { timeoutMs: 15_000 })
  shot("5-bad-edit", bad)
  check(
    "bad edit: list kept, error names the line, reopen offered",
    /Line \d+ of your edit has an error/.test(screenText(bad)) && blockHas(/3\/5 done/)(bad),
    (screenText(bad).match(/Line \d+ of your edit has an error/) ?? [""])[0],
  )
  tui.press("Escape")
  await sleep(800)

  // 5. Copy (OSC 52), Export to <project>/TODO.md (confirming over a foreign file), Import it back edited.
  await openEntry("Copy as Markdown")
  await tui.waitFor(/Sent to the terminal clipboard \(OSC 52\)/, { timeoutMs: 10_000 })
  const clip = tui.clipboard()
  check("Copy sent the Markdown through OSC 52", /## Design[\s\S]*- \[x\] Add the dialog/.test(clip))
  await sleep(300)
  tui.press("Enter")
  const view = await tui.waitFor(/Todo as Markdown \(select and copy\)/, { timeoutMs: 10_000 })
  check(
    "Copy says the Markdown was sent (not confirmed) and shows it on request",
    /## Design/.test(screenText(view)),
  )
  await sleep(300)
  tui.press("Enter")
  await sleep(800)
  // Asked once per install: the answer is in the host's key-value store, and the next Copy acts on it.
  const kvFile = join(tui.dirs.xdgState, "opencode", "kv.json")
  const keptAnswer = existsSync(kvFile)
    ? JSON.parse(readFileSync(kvFile, "utf8"))["opencode-todo.copy.showMarkdown"]
    : undefined
  await openEntry("Copy as Markdown")
  const again = await tui.waitFor(
    /Todo as Markdown \(select and copy\)|Sent to the terminal clipboard \(OSC 52\)/,
    {
      timeoutMs: 10_000,
    },
  )
  shot("5b-copy-again", again)
  check(
    "a second Copy does not ask again: it shows the Markdown as first answered (kept in the TUI's kv.json)",
    /Todo as Markdown \(select and copy\)/.test(screenText(again)) &&
      !/Show the Markdown to select/.test(screenText(again)) &&
      keptAnswer === true,
    `kv.json: ${JSON.stringify(keptAnswer)}`,
  )
  await sleep(300)
  tui.press("Enter")
  await sleep(800)
  const todoFile = join(tui.dirs.project, "TODO.md")
  writeFileSync(todoFile, "# My own notes\n")
  await openEntry("Export to TODO.md")
  shot("6-overwrite", await tui.waitFor(/Overwrite TODO\.md\?/, { timeoutMs: 10_000 }))
  await sleep(300)
  tui.press("Enter")
  shot("7-exported", await tui.waitFor(/Wrote 5 tasks/, { timeoutMs: 10_000 }))
  const exported = readFileSync(todoFile, "utf8")
  check(
    "Export asked before overwriting a foreign TODO.md, then wrote the list",
    exported.startsWith("<!-- opencode-todo -->") && exported.includes("- [!] Ship the package"),
  )
  writeFileSync(todoFile, exported.replace("- [>] Write the parser", "- [x] Write the parser"))
  await openEntry("Import from TODO.md")
  await tui.waitFor(/Replace the list\?/, { timeoutMs: 10_000 })
  await sleep(300)
  tui.press("Enter")
  await tui.waitFor(blockHas(/4\/5 done, 1 blocked/), { timeoutMs: 10_000 })
  const imported = storedRecord()?.list?.[0]?.tasks?.[1]
  check(
    "Import replaced the list from the edited TODO.md",
    imported?.text === "Write the parser" && imported.status === "completed",
    JSON.stringify(imported),
  )
  // A title-only file would clear the list: Import asks first, and closing the question keeps the list.
  writeFileSync(todoFile, "# My own notes\n")
  await openEntry("Import from TODO.md")
  shot("7b-clear", await tui.waitFor(/Clear the list\?/, { timeoutMs: 10_000 }))
  await sleep(300)
  tui.press("Escape")
  await sleep(800)
  const notCleared = storedRecord()?.list?.flatMap((phase) => phase.tasks) ?? []
  check(
    "Import asked before a title-only TODO.md cleared the list; closing the question kept it",
    notCleared.length === 5,
    `${notCleared.length} tasks stored`,
  )

  // 6. Append: text, then the phase.
  await openEntry("Append a task")
  await tui.waitFor(/What needs doing\?/, { timeoutMs: 10_000 })
  tui.type("Write the docs")
  await sleep(300)
  tui.press("Enter")
  await tui.waitFor(/Phase for "Write the docs"/, { timeoutMs: 10_000 })
  await pick("Build")
  const appended = await tui.waitFor(blockHas(/4\/6 done, 1 blocked/), { timeoutMs: 10_000 })
  check(
    "Append added the task to the chosen phase",
    /Build 2\/4/.test(todoBlock(appended).lines.join("\n")) &&
      todoBlock(appended).lines.some((l) => l.includes("Write the docs")),
    todoBlock(appended).lines.join(" | "),
  )
  check(
    "none of the dialog actions made a model request",
    model.requests.length === requestsBefore,
    `${model.requests.length}`,
  )

  // 7. A typed `/todo <verb>` runs in the TUI: no model request, a short toast, the sidebar at once, a note
  // for the model's next request. A typo changes nothing and costs nothing either. Autocomplete shows one
  // `/todo` row, the server command's, with a description that says what it does.
  tui.type("/todo")
  const popup = await tui.waitFor((s) => s.text.filter((l) => /\/todo(\s|$)/.test(l)).length >= 2, {
    timeoutMs: 15_000,
  })
  await sleep(600)
  const rows = (await tui.settle({ settleMs: 500 })).text.filter((l) => /┃\s*\/todo\s{2,}\S/.test(l))
  shot("8a-autocomplete", popup)
  check(
    "autocomplete shows one /todo row, the server command's, saying what it does",
    rows.length === 1 && /Todo list: open it, or done\|start\|block/.test(rows[0] ?? ""),
    rows.map((r) => r.trim()).join(" | "),
  )
  const typedBefore = model.requests.length
  const typedVerb = await typeTodo("done Ship the package", { started: true })
  const typedToast = await tui.waitFor(/"Ship the package": blocked → done/, { timeoutMs: 15_000 })
  const viaTui = await tui.waitFor(blockHas(/5\/6 done/), { timeoutMs: 15_000 })
  const typedSeen = Date.now() - typedVerb
  shot("8-typed-verb", typedToast)
  check(
    "typed /todo done <name>: prompt cleared, a toast says the change, the sidebar follows",
    !/\/todo done Ship/.test(screenText(viaTui)) && /Now 5\/6 done/.test(screenText(typedToast)),
    `${secs(typedSeen)} after Enter`,
  )
  sidebarFinal = todoBlock(viaTui).lines.join("\n")
  const typo = await typeTodo("done Shp teh package")
  const typoToast = await tui.waitFor(/No task or phase matches "Shp teh package"/, { timeoutMs: 15_000 })
  shot("8b-typo", typoToast)
  check("a typo: an error toast naming what was typed, the list unchanged", blockHas(/5\/6 done/)(typoToast))
  await sleep(3000)
  const typedRequests = model.requests.length - typedBefore
  console.log(
    `model requests caused by a typed /todo done and a typo: ${typedRequests} (${secs(Date.now() - typo)} after the typo)`,
  )
  need("typed /todo verbs made no model request", typedRequests === 0, `${typedRequests} requests`)
  check(
    "the typed verb queued its note for the model",
    (storedRecord()?.edits ?? []).some((e) =>
      e.lines?.some((l) => l.includes('"Ship the package": blocked → done')),
    ),
    JSON.stringify(storedRecord()?.edits?.map((e) => e.lines)),
  )
  // The next prompt carries the note once; the request after it does not.
  const noteBefore = model.mainRequests().length
  await tui.submit("What changed?")
  await tui.waitFor(() => model.mainRequests().length > noteBefore, { timeoutMs: 120_000 })
  await tui.waitFor((s) => !/esc interrupt/.test(s.text.join("\n")), { timeoutMs: 120_000 })
  const noteRequests = model.mainRequests().slice(noteBefore)
  const told = noteRequests.map(
    (r) => (JSON.stringify(r.body.messages).match(/Ship the package\\": blocked → done/g) ?? []).length,
  )
  check(
    "the model is told of the typed change once, on its next request",
    told[0] === 1 && noteRequests.length >= 1,
    `mentions per request after the prompt: ${told.join(", ")}`,
  )

  // 7b. The dialog opens at the work: at 160x45 (16 rows of options), with 8 tasks and the earlier
  // phases finished, the in-progress phase's open tasks are on the first screen and each finished
  // phase is one folded row; choosing a folded row shows that phase's tasks.
  await resize(160, 45)
  writeFileSync(
    todoFile,
    [
      "## Design",
      "- [x] Sketch the model",
      "- [x] Write the parser",
      "- [x] Pick the names",
      "## Build",
      "- [x] Wire the sidebar",
      "- [x] Add the dialog",
      "## Ship",
      "- [>] Tag the release",
      "- [ ] Publish the package",
      "- [ ] Announce it",
      "",
    ].join("\n"),
  )
  await openEntry("Import from TODO.md")
  await tui.waitFor(/Replace the list\?/, { timeoutMs: 10_000 })
  await sleep(300)
  tui.press("Enter")
  await tui.waitFor(blockHas(/5\/8 done/), { timeoutMs: 15_000 })
  const atWorkScreen = await openTodo()
  shot("8c-dialog-at-work", atWorkScreen)
  // The dialog's columns only: the sidebar (the right 42 of 160) shows the open tasks too.
  const atWork = atWorkScreen.text.map((line) => line.slice(0, 116)).join("\n")
  const unseen = [
    "▶ Tag the release",
    "○ Publish the package",
    "○ Announce it",
    "▸ Design",
    "▸ Build",
  ].filter((row) => !atWork.includes(row))
  check(
    "160x45, earlier phases finished: the in-progress phase's open tasks on the dialog's first screen, finished phases folded",
    // The import's toast names the tasks too: a folded task is one with no dialog row ("✓ …").
    unseen.length === 0 && !atWork.includes("✓ Sketch the model"),
    unseen.length > 0 ? `not shown: ${unseen.join(", ")}` : "",
  )
  await pick("Design")
  const unfolded = await tui.waitFor(/✓ Sketch the model/, { timeoutMs: 10_000 }).catch(() => undefined)
  if (unfolded) shot("8d-dialog-unfolded", unfolded)
  check(
    "choosing a folded phase shows its tasks",
    unfolded !== undefined && /✓ Pick the names/.test(screenText(unfolded)),
  )
  tui.press("Escape")
  await sleep(800)
  await resize(200)

  // 8. The list actions are on the dialog's first screen, with 9 tasks and with 40 (the host shows 19
  // rows at 50 lines and has no pinning). Long rows and headings end in "…" and keep their status.
  const todoFile9 = join(tui.dirs.project, "TODO.md")
  const longTask = "Task 1 with a very long title that goes on and on and on and on and on"
  const longPhase = "Alpha phase with a long name that goes on and on and on and on"
  writeFileSync(
    todoFile9,
    [
      `## ${longPhase}`,
      `- [>] ${longTask}`,
      "- [ ] Task 2",
      "- [ ] Task 3",
      "## Beta",
      ...[4, 5, 6].map((n) => `- [ ] Task ${n}`),
      "## Gamma",
      ...[7, 8, 9].map((n) => `- [ ] Task ${n}`),
      "",
    ].join("\n"),
  )
  for (const size of [9, 40]) {
    if (size === 40) {
      const phases = ["Design", "Build", "Test", "Ship"].map(
        (name, p) =>
          `## ${name}\n${Array.from({ length: 10 }, (_, i) => `- [ ] Task ${p * 10 + i + 1}`).join("\n")}`,
      )
      writeFileSync(todoFile9, `${phases.join("\n")}\n`)
    }
    await openEntry("Import from TODO.md")
    await tui.waitFor(/Replace the list\?/, { timeoutMs: 10_000 })
    await sleep(300)
    tui.press("Enter")
    await tui.waitFor(blockHas(new RegExp(`0/${size} done`)), { timeoutMs: 15_000 })
    const screen = await openTodo()
    shot(`9-dialog-${size}`, screen)
    const text = screenText(screen)
    const missing = [
      "Append a task…",
      "Edit as Markdown",
      "Copy as Markdown",
      "Export to TODO.md…",
      "Import from TODO.md…",
    ].filter((title) => !text.includes(title))
    check(
      `${size} tasks: every list action on the dialog's first screen`,
      missing.length === 0,
      missing.join(", "),
    )
    if (size === 9) {
      const row = /▶ Task 1 with a very long[^┃\n]*…\s+in progress/.exec(text)?.[0] ?? ""
      const heading = /Alpha phase with a long name[^┃\n"]*… 0\/3/.exec(text)?.[0] ?? ""
      check(
        "a long task row ends in … and keeps its status; a long phase heading stays on one row",
        row !== "" && heading !== "",
        `${JSON.stringify(row)} / ${JSON.stringify(heading)}`,
      )
    }
    tui.press("Escape")
    await sleep(800)
  }

  // 9. Undo and redo through the host's API (POST /session/:id/revert, /unrevert): reverted to the
  // "What changed?" prompt, the sidebar and the dialog show the list as it was before it (the typed verb
  // included, the imports after it not), with no model request; the delay from the revert to the
  // sidebar change is measured. A typed edit made while reverted whose task is gone from the newest list
  // is dropped on redo with one toast, and the newest list comes back.
  const roundStarted = Date.now()
  await revertRound()
  console.log(`undo and redo step took ${secs(Date.now() - roundStarted)}`)

  // 10. $EDITOR while the list changes meanwhile (the "agent" below writes the stored record while the
  // editor is open). A save that changes nothing keeps that change; a real edit asks first.
  const recordDir = join(tui.dirs.xdgData, "opencode", "plugin", "todo")
  const agentWrite = join(scratch, "agent-write.mjs")
  writeFileSync(
    agentWrite,
    [
      'import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"',
      'import { join } from "node:path"',
      "const dir = process.argv[2]",
      'const file = join(dir, readdirSync(dir).find((f) => f.endsWith(".json")))',
      'const record = JSON.parse(readFileSync(file, "utf8"))',
      'const task = record.list[0].tasks.find((t) => t.status !== "completed")',
      'task.status = "completed"',
      "record.revision += 1",
      // Written outside the plugin: without a history the record reads as the history of its list alone.
      "delete record.history",
      'writeFileSync(file + ".agent", JSON.stringify(record, null, 2) + "\\n")',
      'renameSync(file + ".agent", file)',
      "",
    ].join("\n"),
  )
  writeFileSync(
    editor,
    [
      "#!/bin/sh",
      `mode=$(cat '${editorMode}' 2>/dev/null)`,
      `'${process.execPath}' '${agentWrite}' '${recordDir}'`,
      'if [ "$mode" = edit ]; then sed -i "s/^- \\[ \\] Task 40$/- [x] Task 40/" "$1"; fi',
      "exit 0",
      "",
    ].join("\n"),
  )
  writeFileSync(editorMode, "unchanged")
  await openEntry("Edit as Markdown")
  const kept = await tui.waitFor(/keeps that update/, { timeoutMs: 15_000 })
  shot("10-editor-unchanged", kept)
  await sleep(1500)
  check(
    "$EDITOR saved unchanged while the list changed: no replace offered, the other change kept",
    !/The list changed meanwhile/.test(screenText(await tui.settle({ settleMs: 500 }))) &&
      blockHas(/1\/40 done/)(tui.capture()),
    todoBlock(tui.capture())?.lines[0],
  )
  writeFileSync(editorMode, "edit")
  await openEntry("Edit as Markdown")
  const asked = await tui.waitFor(/The list changed meanwhile/, { timeoutMs: 15_000 })
  shot("11-editor-conflict", asked)
  await sleep(300)
  tui.press("Escape")
  const discarded = await tui.waitFor(blockHas(/2\/40 done/), { timeoutMs: 10_000 })
  check(
    "$EDITOR edit while the list changed: asks before replacing; cancelling keeps the other change",
    /undoes the other change/.test(screenText(asked)) &&
      !storedRecord()?.list?.[3]?.tasks?.[9]?.status?.startsWith("comp"),
    todoBlock(discarded)?.lines[0],
  )
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

// 11. Toasts from the server: a nudge, a task the agent blocks, a completion reminder, all done. The
// scripted model holds each next step until the check has seen the toast (the host shows one at a time).
const toastStarted = Date.now()
await toastRun()
console.log(`toast run took ${secs(Date.now() - toastStarted)}`)
// 12. The TUI plugin alone: it says once that the server plugin is missing, takes the /todo slash name,
// and a typed verb still reaches no model.
const aloneStarted = Date.now()
await aloneRun()
console.log(`TUI-alone run took ${secs(Date.now() - aloneStarted)}`)

if (sidebarCapture)
  console.log(`\n--- sidebar block after the model's calls (200x50) ---\n${sidebarCapture}\n---`)
if (sidebarFinal) console.log(`--- sidebar block at the end ---\n${sidebarFinal}\n---`)
process.exit(report.finish(`${since()}, ${model.requests.length} model requests in the main run`))

async function toastRun() {
  const gates = new Map()
  const gate = (name) => {
    if (!gates.has(name)) {
      let release
      const opened = new Promise((resolve) => {
        release = resolve
      })
      gates.set(name, { opened, release })
    }
    return gates.get(name)
  }
  const plan = [{ phase: "Work", items: ["Fetch the key", "Deploy"] }]
  const toastModel = await startMockModel({
    decide: async (_body, info) => {
      if (info.kind !== "main") return undefined
      const todo = info.toolResults.filter((r) => r.name === "todo").length
      const bash = info.toolResults.filter((r) => r.name === "bash").length
      const call = (name, args) => ({ toolCalls: [{ name, args }] })
      if (todo === 0) return call("todo", { op: "init", list: plan })
      if (bash === 0) return call("bash", { command: "true", description: "Try the deploy" })
      if (todo === 1) {
        await gate("nudge").opened
        return call("todo", { op: "block", task: "Fetch the key", reason: "needs the staging key" })
      }
      if (todo === 2 && info.lastRole === "tool") {
        await gate("blocked").opened
        return { text: "Stopping here for now." }
      }
      if (todo === 2) {
        await gate("reminder").opened
        return call("todo", {
          ops: [
            { op: "unblock", task: "Fetch the key" },
            { op: "done", task: "Fetch the key" },
            { op: "done", task: "Deploy" },
          ],
        })
      }
      return { text: "Both done." }
    },
  })
  const seen = async (name, pattern) => {
    try {
      const screen = await tui.waitFor(pattern, { timeoutMs: 180_000 })
      shot(`12-toast-${name}`, screen)
      const said = (screenText(screen).match(pattern) ?? [""])[0]
      check(
        `toast: ${name}`,
        true,
        said
          .split("\n")
          .at(-1)
          .replace(/[┃\s]+$/, "")
          .trim(),
      )
    } catch (error) {
      check(`toast: ${name}`, false, error.message.split("\n")[0])
    } finally {
      gate(name).release()
    }
  }
  try {
    tui = await startTui({
      modelUrl: toastModel.url,
      serverPlugins: [SERVER_ENTRY],
      tuiPlugins: [TUI_ENTRY],
      // One shell command is enough for a nudge here (12 by default).
      prepare: (dirs) => {
        mkdirSync(join(dirs.project, ".opencode"), { recursive: true })
        writeFileSync(join(dirs.project, ".opencode", "todo.json"), '{ "nudgeAfter": 1 }\n')
      },
    })
    await tui.waitReady({ timeoutMs: 120_000 })
    await tui.submit("Deploy it.")
    await seen("nudge", /Nudged the agent to update its todo list\./)
    await seen("blocked", /The agent blocked a task[\s\S]*"Fetch the key": needs the staging key/)
    await seen("reminder", /Reminded the agent: 1 task open, 1 blocked\./)
    await seen("all done", /All done: 2\/2 tasks\./)
  } catch (error) {
    report.error(`toast run: ${error.message.split("\n")[0]}`)
  } finally {
    for (const name of ["nudge", "blocked", "reminder"]) gate(name).release()
    try {
      await tui?.stop()
    } catch {}
    await toastModel.close()
  }
}

async function aloneRun() {
  const aloneModel = await startMockModel({ decide: () => ({ text: "Plain reply." }) })
  try {
    tui = await startTui({ modelUrl: aloneModel.url, serverPlugins: [], tuiPlugins: [TUI_ENTRY] })
    // The notice comes as soon as the TUI has its config, which can be before the prompt settles.
    const notice = await tui.waitFor(/server plugin not loaded/, { timeoutMs: 120_000, intervalMs: 100 })
    shot("13-tui-alone", notice)
    check(
      "TUI alone: a notice says the agent side is missing",
      /agent has no todo tool/.test(
        screenText(notice)
          .replace(/\s*┃\s*/g, " ")
          .replace(/\s+/g, " "),
      ),
    )
    await tui.waitReady({ timeoutMs: 120_000 })
    await tui.waitFor((s) => !/server plugin not loaded/.test(screenText(s)), { timeoutMs: 20_000 })
    tui.type("/todo")
    const popup = await tui.waitFor((s) => s.text.filter((l) => /\/todo(\s|$)/.test(l)).length >= 2, {
      timeoutMs: 15_000,
    })
    const rows = popup.text.filter((l) => /┃\s*\/todo\s{2,}\S/.test(l))
    check(
      "TUI alone: /todo is the TUI command's own row",
      rows.length === 1 && /no model turn/.test(rows[0] ?? ""),
      rows.map((r) => r.trim()).join(" | "),
    )
    const before = aloneModel.requests.length
    await typeTodo("done parser", { started: true })
    await tui.waitFor(/Open a session first/, { timeoutMs: 15_000 })
    await sleep(2000)
    check(
      "TUI alone: a typed /todo verb is not sent to the model as a chat message",
      aloneModel.requests.length === before,
      `${aloneModel.requests.length - before} requests`,
    )
  } catch (error) {
    report.error(`TUI-alone run: ${error.message.split("\n")[0]}`)
  } finally {
    try {
      await tui?.stop()
    } catch {}
    await aloneModel.close()
  }
}

/**
 * Step 9: revert to the second prompt over HTTP, read the sidebar and the dialog, edit while reverted,
 * unrevert. The list before the second prompt is the one its note told the model (5/6 done); the imports
 * came after it (0/40).
 */
async function revertRound() {
  const session = (await api.get("/session"))[0]?.id
  const messages = await api.get(`/session/${session}/message`)
  const second = messages.filter((m) => m.info.role === "user")[1]?.info.id
  need("the session has its second prompt", Boolean(second), `${messages.length} messages`)
  const before = model.requests.length
  const tRevert = Date.now()
  await api.post(`/session/${session}/revert`, { messageID: second })
  const answered = Date.now() - tRevert
  const reverted = await tui.waitFor(blockHas(/5\/6 done/), { timeoutMs: 15_000, intervalMs: 50 })
  const delay = Date.now() - tRevert
  shot("10a-reverted", reverted)
  console.log(
    `sidebar showed the list before the revert point ${delay} ms after POST /revert was sent (the host answered in ${answered} ms)`,
  )
  check(
    `revert: the sidebar shows the list before the revert point within ${MAX_REVERT_DELAY_MS / 1000} s`,
    delay <= MAX_REVERT_DELAY_MS && todoBlock(reverted).lines.some((l) => l.includes("Write the docs")),
    `${delay} ms; ${todoBlock(reverted).lines.join(" | ")}`,
  )
  const dialog = await openTodo()
  shot("10b-reverted-dialog", dialog)
  check("revert: the /todo dialog shows the same list", /Todo\s+5\/6 done/.test(screenText(dialog)))
  tui.press("Escape")
  await sleep(800)
  // Done on a task the newest list (40 imported tasks) no longer has: kept while reverted, dropped on redo.
  await typeTodo("done Write the docs")
  await tui.waitFor(blockHas(/6\/6 done/), { timeoutMs: 15_000 })
  const tRedo = Date.now()
  await api.post(`/session/${session}/unrevert`)
  const redone = await tui.waitFor(blockHas(/0\/40 done/), { timeoutMs: 15_000, intervalMs: 50 })
  const redoDelay = Date.now() - tRedo
  shot("10c-unreverted", redone)
  console.log(`sidebar showed the newest list ${redoDelay} ms after POST /unrevert`)
  check(
    `unrevert: the sidebar shows the newest list again within ${MAX_REVERT_DELAY_MS / 1000} s`,
    redoDelay <= MAX_REVERT_DELAY_MS,
    `${redoDelay} ms`,
  )
  // The server says what the redo dropped, in one toast (its title, then its first line).
  const droppedToast = (screen) =>
    /Todo: an edit no longer applies/.test(screenText(screen)) &&
    /Made while undone, not kept:/.test(screenText(screen))
  const dropped = await tui.waitFor(droppedToast, { timeoutMs: 10_000 }).catch(() => undefined)
  if (dropped) shot("10d-dropped", dropped)
  const droppedLine = dropped
    ? (screenText(dropped).match(/[^┃\n]*Write the docs[^┃\n]*/) ?? [""])[0].trim()
    : "no toast"
  check(
    "unrevert: the edit made while reverted, whose task is gone, is dropped with one toast",
    dropped !== undefined && /Write the docs/.test(screenText(dropped)),
    droppedLine,
  )
  await sleep(2000)
  need(
    "undo and redo made no model request",
    model.requests.length === before,
    `${model.requests.length - before} requests`,
  )
}
