#!/usr/bin/env node
// Try the `todo` tool blind: one tool call per invocation, on a list kept in a JSON file, answered with the
// exact text the model would read. Uses the built core (dist/tool-trial.mjs: run `npm run build` first), so
// what you try is what ships. Meant for an agent that knows only what the model knows:
//
//   node scripts/try-tool.mjs --describe          what the model is given: the tool's description, its
//                                                 parameters (JSON schema) and the todo-discipline skill
//   node scripts/try-tool.mjs --describe --lean   the same in lean mode (mode: "lean"): the short
//                                                 description, and no skill
//   node scripts/try-tool.mjs '{"op":"view"}'     one call; the arguments are the JSON the model would send
//   echo '{"op":"view"}' | node scripts/try-tool.mjs -      the same, arguments read from stdin
//   node scripts/try-tool.mjs --list my.json '…'  keep the list in my.json (default: todo-trial.json here)
//   node scripts/try-tool.mjs --reset             forget the list (start from an empty one)
//   node scripts/try-tool.mjs --show              print the stored list (not something the model sees)
//
// The call's result is printed on stdout exactly as the model reads it; the exit code is 0 when the call
// succeeded, 1 when the tool answered with an error (nothing changed), 2 when this script was misused.
// Successful calls save the list they leave; failed calls leave the file as it was.

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const ENTRY = join(ROOT, "dist", "tool-trial.mjs")
const SKILL = join(ROOT, "skills", "todo-discipline", "SKILL.md")

function usage() {
  const lines = readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n")
  const end = lines.findIndex((line) => line.trim() === "")
  return lines
    .slice(1, end)
    .map((line) => line.replace(/^\/\/ ?/, ""))
    .join("\n")
}

function misuse(message) {
  process.stderr.write(`${message}\n\n${usage()}\n`)
  process.exit(2)
}

const argv = process.argv.slice(2)
let listFile = resolve("todo-trial.json")
let lean = false
const rest = []
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--list") {
    const file = argv[++i]
    if (!file) misuse("--list needs a file name.")
    listFile = resolve(file)
  } else if (argv[i] === "--lean") lean = true
  else rest.push(argv[i])
}

if (rest.length === 0 || rest[0] === "--help" || rest[0] === "-h") {
  process.stdout.write(`${usage()}\n`)
  process.exit(rest.length === 0 ? 2 : 0)
}
if (!existsSync(ENTRY)) misuse(`${ENTRY} is missing: run \`npm run build\` first.`)
const trial = await import(pathToFileURL(ENTRY).href)

const [command] = rest
if (command === "--describe") {
  const skill = readFileSync(SKILL, "utf8")
  const name = /^name: (.*)$/m.exec(skill)?.[1] ?? ""
  const description = /^description: (.*)$/m.exec(skill)?.[1] ?? ""
  const body = skill.replace(/^---[\s\S]*?---\n/, "").trim()
  const tool = [
    "== Tool `todo`: description ==",
    lean ? trial.LEAN_TOOL_DESCRIPTION : trial.TOOL_DESCRIPTION,
    "",
    "== Tool `todo`: parameters (JSON schema) ==",
    trial.toolParameters(),
    "",
  ]
  const skillText = [
    "== Skill listed in the system prompt (name: description) ==",
    `${name}: ${description}`,
    "",
    "== Skill text (what the model reads when it loads the skill) ==",
    body,
    "",
  ]
  // Lean mode offers no skill.
  process.stdout.write([...tool, ...(lean ? [] : skillText)].join("\n"))
  process.exit(0)
}
if (command === "--reset") {
  rmSync(listFile, { force: true })
  process.stdout.write(`Forgot the list in ${listFile}.\n`)
  process.exit(0)
}

const stored = existsSync(listFile) ? JSON.parse(readFileSync(listFile, "utf8")) : null
if (command === "--show") {
  process.stdout.write(`${JSON.stringify(stored ?? [], null, 2)}\n`)
  process.exit(0)
}
if (rest.length > 1)
  misuse("Give the call's arguments as one JSON argument (quote it), or - to read them from stdin.")
const source = command === "-" ? readFileSync(0, "utf8") : command
let args
try {
  args = JSON.parse(source)
} catch (error) {
  misuse(`The arguments are not JSON: ${error.message}`)
}
const result = trial.tryCall(stored, args)
if (result.ok) writeFileSync(listFile, `${JSON.stringify(result.list)}\n`)
process.stdout.write(`${result.text}\n`)
process.exit(result.ok ? 0 : 1)
