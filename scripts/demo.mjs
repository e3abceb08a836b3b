#!/usr/bin/env node
// The README's main job: a real OpenCode session with the plugin against the bundled scripted
// model, no API key needed. The model plans a small fix in phases, works through part of it,
// stops early with work open, is reminded by the plugin, and finishes. Everything that happens
// is printed as it happens, with the todo list each time it changes.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { startHost } from "./lib/host.mjs"
import { startMockModel } from "./lib/mock-model.mjs"
import { decide } from "./lib/scenarios.mjs"
import { sleep, waitQuiet } from "./lib/wait.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const SERVER_ENTRY = join(root, "dist", "server.mjs")
const MARKER = "[todo plugin: automatic message, not written by the user]"

if (!existsSync(SERVER_ENTRY)) {
  console.log("Building the plugin first (npm run build)…")
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const GLYPH = { pending: "[ ]", in_progress: "[>]", completed: "[x]", abandoned: "[-]", blocked: "[!]" }
function printList(list) {
  for (const phase of list) {
    const closed = phase.tasks.filter((t) => t.status === "completed" || t.status === "abandoned").length
    console.log(`      ${phase.name} (${closed}/${phase.tasks.length})`)
    for (const t of phase.tasks)
      console.log(`        ${GLYPH[t.status]} ${t.text}${t.blocker ? ` (${t.blocker})` : ""}`)
  }
}
const indent = (text, pad = "      ") =>
  text
    .split("\n")
    .map((l) => pad + l)
    .join("\n")

const model = await startMockModel({ decide })
console.log("Starting the real opencode server with the plugin and a scripted local model…")
const host = await startHost({ modelUrl: model.url, plugins: [SERVER_ENTRY], bootTimeoutMs: 120_000 })
let exitCode = 0
try {
  const session = await host.createSession()
  const seen = new Set()
  let cursor = 0
  let done = false

  // Prints each finished part once, in the order the host reports them.
  const printer = (async () => {
    while (!done) {
      const events = host.events.slice(cursor)
      cursor += events.length
      for (const e of events) {
        if (e.type !== "message.part.updated") continue
        const part = e.properties.part
        if (part.sessionID !== session.id || seen.has(part.id)) continue
        if (part.type === "text" && part.synthetic && part.text.startsWith(MARKER)) {
          seen.add(part.id)
          console.log(
            `\n  plugin (hidden message to the model):\n${indent(part.text.slice(MARKER.length).trim())}`,
          )
        } else if (part.type === "text" && !part.synthetic && e.properties.part.time?.end) {
          seen.add(part.id)
          console.log(`\n  assistant: ${part.text}`)
        } else if (
          part.type === "tool" &&
          (part.state?.status === "completed" || part.state?.status === "error")
        ) {
          seen.add(part.id)
          const args = JSON.stringify(part.state.input)
          console.log(`\n  tool ${part.tool} ${args.length > 140 ? `${args.slice(0, 137)}…` : args}`)
          if (part.tool === "todo") {
            console.log(indent(part.state.output ?? part.state.error ?? ""))
            if (part.state.metadata?.list) {
              console.log("    list now:")
              printList(part.state.metadata.list)
            }
          } else console.log(indent(String(part.state.output ?? part.state.error ?? "").trim()))
        }
      }
      await sleep(100)
    }
  })()

  const prompt = "scenario:demo The parser crashes on empty input. Please fix it."
  console.log(`\n  user: ${prompt.replace("scenario:demo ", "")}`)
  await host.turn(session.id, prompt, { idleTimeoutMs: 150_000 })
  // The reminder starts a second turn after the first goes idle: wait until nothing more happens.
  await waitQuiet(host, model, session.id, { quietMs: 6000, timeoutMs: 300_000 })
  done = true
  await printer

  const messages = await host.listMessages(session.id)
  const reminders = messages.filter((m) =>
    m.parts.some((p) => p.type === "text" && p.synthetic && p.text?.startsWith(MARKER)),
  ).length
  const finalList = messages
    .flatMap((m) => m.parts)
    .filter((p) => p.type === "tool" && p.tool === "todo")
    .at(-1)?.state?.metadata?.list
  console.log("\nSummary")
  console.log(
    `  model requests: ${model.requests.filter((r) => r.kind === "main").length} (plus ${model.requests.filter((r) => r.kind !== "main").length} title)`,
  )
  console.log(`  plugin reminders: ${reminders}`)
  if (finalList) {
    console.log("  final list:")
    printList(finalList)
  }
  const open = (finalList ?? [])
    .flatMap((p) => p.tasks)
    .filter((t) => t.status === "pending" || t.status === "in_progress")
  if (reminders !== 1 || open.length > 0) {
    console.log("\nThe demo did not go as scripted (expected one reminder and every task closed).")
    exitCode = 1
  }
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.stack : error}`)
  exitCode = 1
} finally {
  await host.stop().catch(() => {})
  await model.close()
}
process.exit(exitCode)
