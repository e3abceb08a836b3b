// Writes docs/layout.md: every folder and source file of the plugin with one line on what it owns (the first
// sentence of the file's own header) and the tests that cover it, so the page is as true as the headers.
// `node scripts/layout.mjs --check` exits 1 when the page differs from what the tree says (the fast tests
// run it); without the flag it writes the page.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const PAGE = join(root, "docs", "layout.md")

/** What each folder is for: the one place these sentences live. */
const FOLDERS = {
  "src/core":
    "The pure core: decisions as values in, values out. No OpenCode import, no file system, no clock.",
  "src/core/list":
    "The list: its types, words, checks, ops, reducers, the `/todo` verbs, `TODO.md`, text width.",
  "src/core/history":
    "The list's history anchored in the conversation: undo, redo, commit, forks, sessions from elsewhere.",
  "src/core/model":
    "What the model reads: tool results, injected notices, stubs, the host prompt's passages.",
  "src/core/session": "When the plugin speaks: the session step, the tracker, permissions, toasts.",
  "src/core/view": "What the person sees: the sidebar, the compact line, the `/todo` dialog.",
  "src/server": "The server plugin: the host's hooks and events decoded, the core stepped, its actions done.",
  "src/tui":
    "The TUI plugin: sidebar, compact line, `/todo` dialog and typed verbs in the host's terminal UI.",
  "src/tui/v1": "The TUI's binding to OpenCode 1.18's TUI API.",
  "src/tui/v2": "The TUI's binding to OpenCode 2's TUI API (checked against its source, not a live host).",
  "src/shared":
    "Modules the server and the TUI both use: user edits, `TODO.md` files, settings, paths, host decoders.",
  "src/store": "The session records on disk: one JSON file per session, a cross-process lock, recovery.",
  "test/unit": "Fast tests of one module each, named after it (`npm test`).",
  "test/host": "Fast tests through a fake host that loads the real plugin entry (`npm test`).",
  "test/slow": "Process kills, stalls, fuzzing, stress and load (`npm run test:slow`).",
  "test/fixtures": "The one fake host, sample lists, the seed of random tests, text budgets.",
  scripts: "The demo, the smoke and sidebar checks on the real host, the installer, verify.",
  "scripts/lib": "What the scripts share: the sandboxed host, the scripted model, the TUI driver, scenarios.",
  bench: "Timing and economy benchmarks (`npm run bench`; CI runs the short ones).",
}

const SOURCE = /\.(ts|tsx|mjs|mts)$/
/** Characters of a header's first sentence the page shows; the file says the rest. */
const MAX_OWNS = 160
/** Importing tests named for a module no test is named after, before "and N more". */
const MAX_IMPORTERS = 3
/** The TUI shell runs only inside the host's TUI: the real-host check covers what no unit test reaches. */
const REAL_TUI = "`scripts/sidebar-check.mjs` (the real TUI)"

function filesUnder(dir) {
  const out = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) out.push(...filesUnder(path))
    else if (SOURCE.test(entry.name) && !entry.name.endsWith(".d.mts")) out.push(path)
  }
  return out.sort()
}

/** The first sentence of a file's header comment, on one line. */
function owns(path) {
  const lines = readFileSync(join(root, path), "utf8").split("\n")
  const header = []
  for (const line of lines) {
    if (line.startsWith("#!")) continue
    const m = /^\s*\/\/ ?(.*)$/.exec(line)
    if (!m) break
    header.push(m[1].trim())
  }
  const text = header.join(" ").replace(/\s+/g, " ").trim()
  if (text === "") return "(no header)"
  const end = text.search(/\.(\s|$)/)
  let sentence = end < 0 ? text : text.slice(0, end + 1)
  if (sentence.length > MAX_OWNS) sentence = `${sentence.slice(0, sentence.lastIndexOf(" ", MAX_OWNS))} …`
  return sentence.replace(/\|/g, "\\|")
}

const stem = (path) =>
  basename(path)
    .replace(/\.(test|property|measure)\./g, ".")
    .replace(SOURCE, "")

/** The relative imports of a file, as paths from the repository root. */
function importsOf(path, text) {
  const out = []
  for (const m of text.matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g))
    out.push(join(dirname(path), m[1]).replace(/\\/g, "/"))
  return out
}

/** Every file a test reaches through its imports, with the ones it imports directly marked. */
function reach(test, texts) {
  const direct = new Set(importsOf(test, texts.get(test) ?? ""))
  const all = new Set()
  const todo = [...direct]
  while (todo.length > 0) {
    const file = todo.pop()
    if (all.has(file)) continue
    all.add(file)
    if (!texts.has(file)) {
      try {
        texts.set(file, readFileSync(join(root, file), "utf8"))
      } catch {
        texts.set(file, "")
      }
    }
    todo.push(...importsOf(file, texts.get(file)))
  }
  return { direct, all }
}

/** The tests that cover a source file: named after it first, then those importing it, then those reaching it. */
function testsOf(path, tests, reached) {
  const rank = (t) => {
    const r = reached.get(t)
    if (!r.all.has(path)) return 3
    if (stem(t).replace(/\.property$/, "") === stem(path)) return 0
    return r.direct.has(path) ? 1 : 2
  }
  return tests
    .map((t) => ({ t, r: rank(t) }))
    .filter((x) => x.r < 3)
    .sort((a, b) => a.r - b.r)
    .map((x) => x.t)
}

function render() {
  const tests = [...filesUnder("test/unit"), ...filesUnder("test/host"), ...filesUnder("test/slow")].filter(
    (t) => t.endsWith(".test.ts"),
  )
  const texts = new Map(tests.map((t) => [t, readFileSync(join(root, t), "utf8")]))
  const reached = new Map(tests.map((t) => [t, reach(t, texts)]))
  const out = [
    "# Layout",
    "",
    "Generated by `node scripts/layout.mjs` from each file's own header (its first sentence) and the tests",
    "named after it or importing it; `npm test` fails when this page and the tree disagree.",
    "",
    "The core's rooms stand in this order, and no room imports one after it (`npm run check` enforces it,",
    "and that nothing under `src/core/` imports `node:*`, `@opencode-ai/*`, Solid or `@opentui/*`):",
    "`list` → `history` → `config.ts` → `model` → `session` → `view`.",
    "",
  ]
  const groups = new Map()
  for (const file of [...filesUnder("src"), ...filesUnder("scripts"), ...filesUnder("bench")]) {
    const dir = dirname(file)
    if (!groups.has(dir)) groups.set(dir, [])
    groups.get(dir).push(file)
  }
  for (const [dir, files] of groups) {
    out.push(`## \`${dir}/\``, "")
    if (FOLDERS[dir]) out.push(FOLDERS[dir], "")
    out.push("| file | owns | tested by |", "| --- | --- | --- |")
    for (const file of files) {
      const by = dir.startsWith("src") ? testsOf(file, tests, reached) : []
      const shown = by.slice(0, MAX_IMPORTERS).map((t) => `\`${relative("test", t)}\``)
      if (by.length > MAX_IMPORTERS) shown.push(`and ${by.length - MAX_IMPORTERS} more`)
      const cell = shown.join(", ") || (dir === "src/tui" ? REAL_TUI : "—")
      out.push(`| \`${basename(file)}\` | ${owns(file)} | ${dir.startsWith("src") ? cell : ""} |`)
    }
    out.push("")
  }
  out.push("## Tests", "")
  for (const dir of ["test/unit", "test/host", "test/slow", "test/fixtures"])
    out.push(`- \`${dir}/\`: ${FOLDERS[dir]}`)
  out.push("")
  return out.join("\n")
}

const page = render()
if (process.argv.includes("--check")) {
  let current = ""
  try {
    current = readFileSync(PAGE, "utf8")
  } catch {}
  if (current !== page) {
    console.error("docs/layout.md is out of date with the tree: run `node scripts/layout.mjs`.")
    process.exit(1)
  }
} else writeFileSync(PAGE, page)
