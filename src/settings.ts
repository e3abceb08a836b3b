// Reads the configuration sources (global and project todo.json, the environment) and
// hands their raw contents to the core's resolver. Missing files are normal; unreadable
// ones become a warning like any other bad value.

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type Resolved, resolveConfig } from "./core/config.ts"
import { configDir } from "./paths.ts"

function readIfPresent(path: string, label: string, warnings: string[]): string | undefined {
  try {
    return readFileSync(path, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== "ENOENT" && code !== "ENOTDIR")
      warnings.push(`${label}: cannot be read (${code ?? String(error)}); ignored.`)
    return undefined
  }
}

export function loadSettings(input: {
  directory: string
  options?: unknown
  env?: NodeJS.ProcessEnv
}): Resolved {
  const env = input.env ?? process.env
  const warnings: string[] = []
  const globalText = readIfPresent(join(configDir(env), "todo.json"), "global todo.json", warnings)
  const projectText = readIfPresent(
    join(input.directory, ".opencode", "todo.json"),
    "project todo.json",
    warnings,
  )
  const resolved = resolveConfig({ globalText, projectText, env, options: input.options })
  return { config: resolved.config, warnings: [...warnings, ...resolved.warnings] }
}
