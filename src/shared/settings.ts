// Reads the configuration sources (global and project todo.json, the environment) and
// hands their raw contents to the core's resolver. Missing files are normal; unreadable,
// special or oversized ones become a warning like any other bad value.

import { join } from "node:path"
import { type Resolved, resolveConfig } from "../core/config.ts"
import { configDir } from "./paths.ts"
import { CONFIG_MAX_BYTES, readProblemText, readTextFile } from "./safe-file.ts"

async function readIfPresent(path: string, label: string, warnings: string[]): Promise<string | undefined> {
  const read = await readTextFile(path, CONFIG_MAX_BYTES)
  if (read.ok) return read.text
  if (read.kind !== "missing") warnings.push(`${label} ${readProblemText(read)}; ignored.`)
  return undefined
}

export async function loadSettings(input: {
  directory: string
  options?: unknown
  env?: NodeJS.ProcessEnv
}): Promise<Resolved> {
  const env = input.env ?? process.env
  const warnings: string[] = []
  const globalText = await readIfPresent(join(configDir(env), "todo.json"), "global todo.json", warnings)
  const projectText = await readIfPresent(
    join(input.directory, ".opencode", "todo.json"),
    "project todo.json",
    warnings,
  )
  const resolved = resolveConfig({ globalText, projectText, env, options: input.options })
  return { ...resolved, warnings: [...warnings, ...resolved.warnings] }
}
