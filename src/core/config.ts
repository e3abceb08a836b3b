// Layered configuration: built-in defaults < global todo.json < project todo.json < environment < plugin options.
// Pure: callers read the files and the environment and pass their contents in; every problem becomes a warning.

import { fail, isRecord, ok, type Result } from "./list/result.ts"
import { DEFAULT_LIMITS, type Limits } from "./list/types.ts"
import { editDistance, preview } from "./list/words.ts"

/** Sidebar rows (header included) when the user sets none. */
export const DEFAULT_SIDEBAR_ROWS = 14
/** The fewest sidebar rows: the header, the active phase and its focus task (core/view/sidebar.ts). */
export const MIN_SIDEBAR_ROWS = 3

export const EAGER_MODES = ["default", "preferred", "always"] as const
export type EagerMode = (typeof EAGER_MODES)[number]
/** How much guidance the model gets; model/mode.ts says what each means and which models `auto` makes lean. */
export const MODES = ["auto", "full", "lean"] as const
export type Mode = (typeof MODES)[number]

export interface Config {
  /** Master switch. A global `false` is a floor that later layers cannot lift. */
  readonly enabled: boolean
  /** Completion reminders when the agent stops with open work. */
  readonly reminders: boolean
  /** Reminders per user-prompt cycle. */
  readonly remindersMax: number
  /** Whether the first prompt of a new session asks for a plan up front. */
  readonly eager: EagerMode
  /** How much guidance the model gets: "full", "lean", or "auto" (lean for the models of model/mode.ts's table). */
  readonly mode: Mode
  /** Whether the host's built-in todowrite tool stays available. */
  readonly keepTodowrite: boolean
  /** Whether the host's system-prompt passages about todo lists are pointed at `todo` (only while todowrite is off). */
  readonly steerHostPrompt: boolean
  /** Mutating tool results without a todo update before a nudge. */
  readonly nudgeAfter: number
  /** Nudges per user-prompt cycle. */
  readonly nudgesMax: number
  readonly maxTaskChars: number
  readonly maxTasks: number
  readonly maxPhases: number
  /** Rows of the TUI's sidebar block, header included (usually set in the tui.json entry). */
  readonly sidebarRows: number
  /** Toasts about what the session does on its own (reminder, nudge, a blocked task, all done). Storage errors always show. */
  readonly toasts: boolean
}

export const DEFAULT_CONFIG: Config = {
  enabled: true,
  reminders: true,
  remindersMax: 3,
  eager: "default",
  mode: "auto",
  keepTodowrite: false,
  steerHostPrompt: true,
  nudgeAfter: 12,
  nudgesMax: 2,
  maxTaskChars: DEFAULT_LIMITS.maxTaskChars,
  maxTasks: DEFAULT_LIMITS.maxTasks,
  maxPhases: DEFAULT_LIMITS.maxPhases,
  sidebarRows: DEFAULT_SIDEBAR_ROWS,
  toasts: true,
}

type Key = keyof Config

/** How a key's raw value is checked. `expected` is the phrase used in warnings. */
type Rule =
  | { readonly kind: "bool" }
  | { readonly kind: "int"; readonly min: number; readonly max: number }
  | { readonly kind: "enum"; readonly values: readonly string[] }

const RULES: { readonly [K in Key]: Rule } = {
  enabled: { kind: "bool" },
  reminders: { kind: "bool" },
  remindersMax: { kind: "int", min: 0, max: 20 },
  eager: { kind: "enum", values: EAGER_MODES },
  mode: { kind: "enum", values: MODES },
  keepTodowrite: { kind: "bool" },
  steerHostPrompt: { kind: "bool" },
  nudgeAfter: { kind: "int", min: 1, max: 1000 },
  nudgesMax: { kind: "int", min: 0, max: 20 },
  maxTaskChars: { kind: "int", min: 20, max: 2000 },
  maxTasks: { kind: "int", min: 1, max: 2000 },
  maxPhases: { kind: "int", min: 1, max: 200 },
  sidebarRows: { kind: "int", min: MIN_SIDEBAR_ROWS, max: 60 },
  toasts: { kind: "bool" },
}

const KEYS = Object.keys(RULES) as Key[]

/** The environment variables read, and the key each one sets. */
export const ENV_KEYS: Readonly<Record<string, Key>> = {
  OPENCODE_TODO_ENABLED: "enabled",
  OPENCODE_TODO_REMINDERS: "reminders",
  OPENCODE_TODO_REMINDERS_MAX: "remindersMax",
  OPENCODE_TODO_EAGER: "eager",
  OPENCODE_TODO_MODE: "mode",
  OPENCODE_TODO_TOASTS: "toasts",
}

export interface ConfigInput {
  /** Raw contents of the global todo.json; undefined when the file is missing. */
  readonly globalText?: string
  /** Raw contents of the project todo.json; undefined when the file is missing. */
  readonly projectText?: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Plugin options from the host config; undefined when none were given. */
  readonly options?: unknown
}

export interface Resolved {
  readonly config: Config
  readonly warnings: string[]
  /** Which source turned the plugin off, as a sentence to log once; absent while it is on. */
  readonly disabled?: string
}

/** Warnings shown per source; a file with 100,000 bad keys must not make 100,000 log lines. */
const WARNINGS_PER_SOURCE = 10
/** How much of an unknown key a warning shows. */
const KEY_PREVIEW = 30
// No known key is within edit distance 2 of a longer name, so the search is skipped (a 10 MB name took seconds).
const SUGGEST_MAX_LENGTH = Math.max(...Object.keys({ ...DEFAULT_CONFIG }).map((k) => k.length)) + 2

/** Collects warnings, at most WARNINGS_PER_SOURCE per source; `finish` adds a count of the rest. */
class Warnings {
  readonly list: string[] = []
  private readonly counts = new Map<string, number>()
  /** True when a warning for `source` would still be shown; lets callers skip costly wording. */
  shows(source: string): boolean {
    return (this.counts.get(source) ?? 0) < WARNINGS_PER_SOURCE
  }
  add(source: string, text: () => string): void {
    if (this.shows(source)) this.list.push(text())
    this.counts.set(source, (this.counts.get(source) ?? 0) + 1)
  }
  finish(): string[] {
    for (const [source, count] of this.counts)
      if (count > WARNINGS_PER_SOURCE)
        this.list.push(`${source}: ${count - WARNINGS_PER_SOURCE} more problems not shown; ignored.`)
    return this.list
  }
}

function expected(rule: Rule): string {
  if (rule.kind === "bool") return "true or false"
  if (rule.kind === "int") return `an integer from ${rule.min} to ${rule.max}`
  return `one of ${rule.values.map((v) => `"${v}"`).join(", ")}`
}

function shown(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return preview(text)
}

function checkJson(rule: Rule, value: unknown): Result<Config[Key]> {
  if (rule.kind === "bool") return typeof value === "boolean" ? ok(value) : fail(expected(rule))
  if (rule.kind === "int")
    return typeof value === "number" && Number.isInteger(value) && value >= rule.min && value <= rule.max
      ? ok(value)
      : fail(expected(rule))
  return typeof value === "string" && rule.values.includes(value)
    ? ok(value as EagerMode | Mode)
    : fail(expected(rule))
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on"])
const FALSE_WORDS = new Set(["false", "0", "no", "off"])

// Environment values are strings typed by hand, so they are trimmed and case-insensitive.
function checkEnv(rule: Rule, raw: string): Result<Config[Key]> {
  const text = raw.trim().toLowerCase()
  if (rule.kind === "bool") {
    if (TRUE_WORDS.has(text)) return ok(true)
    if (FALSE_WORDS.has(text)) return ok(false)
    return fail(expected(rule))
  }
  if (rule.kind === "int")
    return /^[+-]?\d+$/.test(text) ? checkJson(rule, Number(text)) : fail(expected(rule))
  return checkJson(rule, text)
}

/** The known key closest to an unknown one, ignoring case, dashes and underscores; undefined if none is close. */
export function closestKey(unknown: string): Key | undefined {
  const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "")
  const wanted = squash(unknown)
  let best: Key | undefined
  let bestDistance = 3
  for (const key of KEYS) {
    const d = editDistance(wanted, squash(key))
    if (d < bestDistance) {
      best = key
      bestDistance = d
    }
  }
  return best
}

interface Layer {
  readonly source: string
  /** The values this layer tries to set, in the order given. */
  readonly entries: ReadonlyArray<{ key: Key; label: string; ok: boolean; value: unknown }>
}

function parseFile(
  text: string | undefined,
  source: string,
  warnings: Warnings,
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined
  // An empty file is a config nobody filled in yet, not a mistake worth a warning.
  if (text.trim() === "") return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    // The parser's message quotes the file; it is shortened and escaped like any outside text.
    warnings.add(
      source,
      () => `${source}: not valid JSON (${preview((error as Error).message, 80)}); file ignored.`,
    )
    return undefined
  }
  return asObject(parsed, source, warnings)
}

function asObject(value: unknown, source: string, warnings: Warnings): Record<string, unknown> | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`
    warnings.add(source, () => `${source}: expected an object of settings, got ${got}; ignored.`)
    return undefined
  }
  return value
}

function objectLayer(obj: Record<string, unknown> | undefined, source: string, warnings: Warnings): Layer {
  const entries: { key: Key; label: string; ok: boolean; value: unknown }[] = []
  if (obj === undefined) return { source, entries }
  for (const [name, value] of Object.entries(obj)) {
    // Editors add "$schema" to JSON files; it is not a setting.
    if (name === "$schema") continue
    if (!Object.hasOwn(RULES, name)) {
      warnings.add(source, () => {
        const near = name.length <= SUGGEST_MAX_LENGTH ? closestKey(name) : undefined
        const hint = near ? ` (did you mean "${near}"?)` : ""
        return `${source}: unknown key "${preview(name, KEY_PREVIEW)}"${hint}; ignored.`
      })
      continue
    }
    const key = name as Key
    const checked = checkJson(RULES[key], value)
    entries.push({ key, label: key, ok: checked.ok, value: checked.ok ? checked.value : value })
  }
  return { source, entries }
}

function envLayer(env: ConfigInput["env"]): Layer {
  const entries: { key: Key; label: string; ok: boolean; value: unknown }[] = []
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const raw = env[name]
    // An empty variable reads as unset, as shells commonly export empty values.
    if (raw === undefined || raw.trim() === "") continue
    const checked = checkEnv(RULES[key], raw)
    entries.push({ key, label: `${name} (${key})`, ok: checked.ok, value: checked.ok ? checked.value : raw })
  }
  return { source: "environment", entries }
}

/**
 * Resolves the effective config. An invalid value warns (naming source, key, value and what was expected)
 * and keeps the previous layer's value. A global `enabled: false` cannot be undone by a later layer.
 */
export function resolveConfig(input: ConfigInput): Resolved {
  const warnings = new Warnings()
  const config: Record<Key, Config[Key]> = { ...DEFAULT_CONFIG }
  let floor = false
  let disabledBy: string | undefined
  const apply = (layer: Layer, isGlobal: boolean) => {
    for (const entry of layer.entries) {
      // Env entries name their variable as the source; file and option entries name the layer.
      const where = layer.source === "environment" ? entry.label : `${layer.source}: ${entry.label}`
      if (!entry.ok) {
        const before = config[entry.key]
        warnings.add(
          layer.source,
          () =>
            `${where}: expected ${expected(RULES[entry.key])}, got ${shown(entry.value)}; keeping ${shown(before)}.`,
        )
        continue
      }
      if (entry.key === "enabled" && floor && entry.value === true) {
        warnings.add(
          layer.source,
          () =>
            `${where}: true is ignored because the global todo.json sets enabled to false; the plugin stays off.`,
        )
        continue
      }
      config[entry.key] = entry.value as Config[Key]
      if (entry.key === "enabled")
        disabledBy =
          entry.value === false ? (layer.source === "environment" ? entry.label : layer.source) : undefined
      if (isGlobal && entry.key === "enabled" && entry.value === false) floor = true
    }
  }
  const fileLayer = (text: string | undefined, source: string) =>
    objectLayer(parseFile(text, source, warnings), source, warnings)
  apply(fileLayer(input.globalText, "global todo.json"), true)
  apply(fileLayer(input.projectText, "project todo.json"), false)
  apply(envLayer(input.env), false)
  apply(objectLayer(asObject(input.options, "plugin options", warnings), "plugin options", warnings), false)
  const resolved = { config: config as unknown as Config, warnings: warnings.finish() }
  return config.enabled || disabledBy === undefined
    ? resolved
    : { ...resolved, disabled: `${disabledBy} sets enabled to false; the plugin is off.` }
}

function ruleMax(key: "maxTaskChars" | "maxTasks" | "maxPhases"): number {
  const rule = RULES[key]
  return rule.kind === "int" ? rule.max : DEFAULT_CONFIG[key]
}

/**
 * The limits stored lists are read with: the highest any configuration allows. A list saved
 * under looser settings (another process's options, an older todo.json) must still load; the
 * configured limits apply to changes, not to reading what is already there.
 */
export const STORED_LIMITS: Limits = {
  maxTaskChars: ruleMax("maxTaskChars"),
  maxTasks: ruleMax("maxTasks"),
  maxPhases: ruleMax("maxPhases"),
  maxOpsPerCall: DEFAULT_LIMITS.maxOpsPerCall,
}

/** The list limits a config sets; ops per call is not configurable. */
export function limitsOf(config: Config): Limits {
  return {
    maxTaskChars: config.maxTaskChars,
    maxTasks: config.maxTasks,
    maxPhases: config.maxPhases,
    maxOpsPerCall: DEFAULT_LIMITS.maxOpsPerCall,
  }
}
