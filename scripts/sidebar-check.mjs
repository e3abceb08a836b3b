#!/usr/bin/env node
// End-to-end check of the TUI plugin in the real OpenCode TUI (tmux, 200x50) against a scripted
// model. The model's todo calls show up in the sidebar. The /todo dialog changes the list at once
// with no model request: Done, Block with a reason, $EDITOR editing (and its parse-error path),
// Copy, Export, Import, Append. A typed `/todo <verb>` (server command) shows up in the sidebar too.
// Asserts on the sidebar's own columns. Exits non-zero on failure, after cleaning up.
// Run `npm run build` first (package script: `npm run sidebar-check`).
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startMockModel } from "./lib/mock-model.mjs"
import { createReport } from "./lib/report.mjs"
import {
  hasTmux,
  SERVER_ENTRY,
  screenText,
  sidebarBlock,
  startTui,
  TUI_ENTRY,
  todoConversation,
} from "./lib/tui.mjs"
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

/** The Todo block of the sidebar on a screen, or undefined. */
function todoBlock(screen) {
  return sidebarBlock(tui.sidebar(screen), "Todo") ?? undefined
}

function blockHas(pattern) {
  return (screen) => {
    const block = todoBlock(screen)
    return Boolean(block && pattern.test(block.lines.join("\n")))
  }
}

/** fg colour of the first non-blank cell of the row whose text contains `text`. */
function glyphColor(block, text) {
  const row = block.rows.find((r) => r.text.includes(text))
  const cell = row?.cells.find((c) => c.ch.trim() !== "")
  return cell?.fg
}

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
  tui = await startTui({
    modelUrl: model.url,
    serverPlugins: [SERVER_ENTRY],
    tuiPlugins: [TUI_ENTRY],
    recordOutput: true,
    // No completion reminder after the scripted turn: every model request below is one we caused.
    env: { OPENCODE_TODO_REMINDERS: "false", EDITOR: editor, VISUAL: "" },
  })
  await tui.waitReady({ timeoutMs: 120_000 })
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

  // 3. Block with a reason (prompt dialog).
  await openTodo()
  await pick("Ship the package")
  await tui.waitFor(/Choose an action/, { timeoutMs: 10_000 })
  await pick("Block")
  await tui.waitFor(/Why is Ship the package blocked\?/, { timeoutMs: 10_000 })
  tui.type("waiting on review")
  await sleep(300)
  tui.press("Enter")
  const blocked = await tui.waitFor(blockHas(/2\/5 done, 1 blocked/), { timeoutMs: 10_000 })
  const block3 = todoBlock(blocked)
  check(
    "Block… with a reason: blocked row with its reason, in the error colour",
    block3.lines.some((l) => l.startsWith("  ⊘ Ship the package — waiting")) &&
      glyphColor(block3, "⊘ Ship the package") === THEME.error,
    block3.lines.find((l) => l.includes("Ship the package")),
  )

  // 4. Edit as Markdown in $EDITOR: a good edit applies, a bad one keeps the list and names the line.
  writeFileSync(editorMode, "good")
  await openEntry("Edit as Markdown")
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
  await sleep(1500)
  const clip = tui.clipboard()
  check("Copy sent the Markdown through OSC 52", /## Design[\s\S]*- \[x\] Add the dialog/.test(clip))
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

  // 7. A typed `/todo <verb>` goes to the server command (a model turn, by the host's design); the
  // sidebar follows the server's change, with no todo tool call.
  const beforeCommand = model.mainRequests().length
  tui.type("/todo done Ship the package")
  // Under load the prompt can paint late: wait until the typed command is on screen before sending it.
  await tui.waitFor(/\/todo done Ship the package/, { timeoutMs: 20_000 })
  tui.press("Escape")
  await sleep(300)
  await tui.waitFor(/\/todo done Ship the package/, { timeoutMs: 10_000 })
  const t7 = Date.now()
  tui.press("Enter")
  const viaServer = await tui.waitFor(blockHas(/5\/6 done/), { timeoutMs: 120_000 })
  const seen = Date.now() - t7
  shot("8-server-command", viaServer)
  const newCalls = model.mainRequests().slice(beforeCommand)
  check(
    "/todo <verb> runs on the server and the sidebar follows (no todo tool call)",
    newCalls.every((r) => !r.reply?.toolCalls),
    `${secs(seen)} after Enter; the command's model turn had made ${newCalls.length} request(s) by then`,
  )
  sidebarFinal = todoBlock(viaServer).lines.join("\n")
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
if (sidebarFinal) console.log(`--- sidebar block at the end ---\n${sidebarFinal}\n---`)
process.exit(report.finish(`${since()}, ${model.requests.length} model requests`))

/** Types `/todo`, waits for the autocomplete, presses Enter; resolves with the dialog's screen. */
async function openTodo() {
  tui.type("/todo")
  await tui.waitFor((s) => s.text.filter((l) => /\/todo(\s|$)/.test(l)).length >= 2, { timeoutMs: 15_000 })
  await sleep(300)
  tui.press("Enter")
  return tui.waitFor(/Append a task…[\s\S]*Import from TODO\.md…/, { timeoutMs: 15_000 })
}

/** Types into a dialog's filter and presses Enter on the first match; resolves with the time of Enter. */
async function pick(text) {
  tui.type(text)
  await sleep(600)
  const at = Date.now()
  tui.press("Enter")
  return at
}

/** Opens /todo and picks a list entry by its title. */
async function openEntry(title) {
  await openTodo()
  await pick(title)
}

/** The stored record of the (only) session, parsed; undefined when none. */
function storedRecord() {
  const dir = join(tui.dirs.xdgData, "opencode", "plugin", "todo")
  if (!existsSync(dir)) return undefined
  const file = readdirSync(dir).find((f) => f.endsWith(".json"))
  return file ? JSON.parse(readFileSync(join(dir, file), "utf8")) : undefined
}
