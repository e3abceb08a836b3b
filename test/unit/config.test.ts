import { describe, expect, test } from "vitest"
import { closestKey, DEFAULT_CONFIG, limitsOf, resolveConfig } from "../../src/core/config.ts"

const json = (value: unknown) => JSON.stringify(value)

describe("defaults", () => {
  test("no files, no env, no options gives the built-in defaults and no warnings", () => {
    expect(resolveConfig({ env: {} })).toEqual({
      config: {
        enabled: true,
        reminders: true,
        remindersMax: 3,
        eager: "default",
        mode: "auto",
        keepTodowrite: false,
        steerHostPrompt: true,
        nudgeAfter: 12,
        nudgesMax: 2,
        maxTaskChars: 300,
        maxTasks: 200,
        maxPhases: 30,
        sidebarRows: 14,
        toasts: true,
      },
      warnings: [],
    })
  })

  test("toasts: on by default; todo.json or OPENCODE_TODO_TOASTS turns them off; a bad value warns and keeps it", () => {
    expect(resolveConfig({ env: {}, projectText: json({ toasts: false }) }).config.toasts).toBe(false)
    expect(resolveConfig({ env: { OPENCODE_TODO_TOASTS: "false" } }).config.toasts).toBe(false)
    const bad = resolveConfig({ env: { OPENCODE_TODO_TOASTS: "sometimes" } })
    expect(bad.config.toasts).toBe(true)
    expect(bad.warnings).toHaveLength(1)
    expect(bad.warnings[0]).toMatch(/^OPENCODE_TODO_TOASTS \(toasts\): expected true or false/)
  })

  test("sidebarRows: a tui.json entry sets it; a bad value warns and keeps the previous one", () => {
    expect(resolveConfig({ env: {}, options: { sidebarRows: 20 } })).toEqual({
      config: { ...DEFAULT_CONFIG, sidebarRows: 20 },
      warnings: [],
    })
    for (const bad of [2, 61, 7.5, "20", null]) {
      const r = resolveConfig({
        env: {},
        projectText: json({ sidebarRows: 9 }),
        options: { sidebarRows: bad },
      })
      expect(r.config.sidebarRows).toBe(9)
      expect(r.warnings).toEqual([
        `plugin options: sidebarRows: expected an integer from 3 to 60, got ${json(bad)}; keeping 9.`,
      ])
    }
  })

  test("a misspelt sidebarRows is named in the warning", () => {
    expect(resolveConfig({ env: {}, options: { sidebarrow: 5 } }).warnings).toEqual([
      'plugin options: unknown key "sidebarrow" (did you mean "sidebarRows"?); ignored.',
    ])
  })

  test("limitsOf maps the list limits and keeps the fixed ops-per-call cap", () => {
    expect(limitsOf({ ...DEFAULT_CONFIG, maxTaskChars: 99, maxTasks: 7, maxPhases: 3 })).toEqual({
      maxTaskChars: 99,
      maxTasks: 7,
      maxPhases: 3,
      maxOpsPerCall: 50,
    })
  })
})

describe("precedence", () => {
  test("global overrides defaults", () => {
    const { config, warnings } = resolveConfig({
      globalText: json({ remindersMax: 5, eager: "always" }),
      env: {},
    })
    expect(config.remindersMax).toBe(5)
    expect(config.eager).toBe("always")
    expect(warnings).toEqual([])
  })

  test("project overrides global", () => {
    const { config } = resolveConfig({
      globalText: json({ remindersMax: 5, nudgeAfter: 20 }),
      projectText: json({ remindersMax: 6 }),
      env: {},
    })
    expect(config.remindersMax).toBe(6)
    expect(config.nudgeAfter).toBe(20)
  })

  test("env overrides project", () => {
    const { config } = resolveConfig({
      projectText: json({ remindersMax: 6, eager: "preferred", reminders: true }),
      env: {
        OPENCODE_TODO_REMINDERS_MAX: "7",
        OPENCODE_TODO_EAGER: "always",
        OPENCODE_TODO_REMINDERS: "off",
      },
    })
    expect(config.remindersMax).toBe(7)
    expect(config.eager).toBe("always")
    expect(config.reminders).toBe(false)
  })

  test("plugin options override env", () => {
    const { config, warnings } = resolveConfig({
      env: { OPENCODE_TODO_REMINDERS_MAX: "7", OPENCODE_TODO_EAGER: "always" },
      options: { remindersMax: 8, keepTodowrite: true },
    })
    expect(config.remindersMax).toBe(8)
    expect(config.eager).toBe("always")
    expect(config.keepTodowrite).toBe(true)
    expect(warnings).toEqual([])
  })

  test("every layer at once: the last one that sets a key wins", () => {
    const { config } = resolveConfig({
      globalText: json({ maxTasks: 10, maxPhases: 4, nudgesMax: 1, remindersMax: 1 }),
      projectText: json({ maxPhases: 5, nudgesMax: 0, remindersMax: 2 }),
      env: { OPENCODE_TODO_REMINDERS_MAX: "4" },
      options: { nudgesMax: 9 },
    })
    expect(config).toMatchObject({ maxTasks: 10, maxPhases: 5, nudgesMax: 9, remindersMax: 4 })
  })

  test("a project can disable what the global config enabled, and options can re-enable it", () => {
    expect(resolveConfig({ projectText: json({ enabled: false }), env: {} }).config.enabled).toBe(false)
    const back = resolveConfig({ projectText: json({ enabled: false }), env: {}, options: { enabled: true } })
    expect(back).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
  })

  test("unrelated env variables are ignored", () => {
    expect(resolveConfig({ env: { PATH: "/bin", OPENCODE_TODO_OTHER: "1" } })).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [],
    })
  })
})

describe("global enabled:false is a floor", () => {
  test("no later layer can re-enable, and each attempt warns", () => {
    const { config, warnings } = resolveConfig({
      globalText: json({ enabled: false }),
      projectText: json({ enabled: true }),
      env: { OPENCODE_TODO_ENABLED: "yes" },
      options: { enabled: true },
    })
    expect(config.enabled).toBe(false)
    expect(warnings).toEqual([
      "project todo.json: enabled: true is ignored because the global todo.json sets enabled to false; the plugin stays off.",
      "OPENCODE_TODO_ENABLED (enabled): true is ignored because the global todo.json sets enabled to false; the plugin stays off.",
      "plugin options: enabled: true is ignored because the global todo.json sets enabled to false; the plugin stays off.",
    ])
  })

  test("later layers may still say false without a warning", () => {
    const r = resolveConfig({ globalText: json({ enabled: false }), env: { OPENCODE_TODO_ENABLED: "0" } })
    expect(r.config.enabled).toBe(false)
    expect(r.warnings).toEqual([])
  })

  test("other keys still resolve under the floor", () => {
    const r = resolveConfig({ globalText: json({ enabled: false }), env: {}, options: { remindersMax: 9 } })
    expect(r.config.remindersMax).toBe(9)
  })
})

describe("invalid values warn and keep the previous layer's value", () => {
  test("wrong type in a file", () => {
    const r = resolveConfig({
      globalText: json({ remindersMax: 5 }),
      projectText: json({ remindersMax: "6" }),
      env: {},
    })
    expect(r.config.remindersMax).toBe(5)
    expect(r.warnings).toEqual([
      'project todo.json: remindersMax: expected an integer from 0 to 20, got "6"; keeping 5.',
    ])
  })

  test("out of range", () => {
    const r = resolveConfig({ projectText: json({ nudgeAfter: 0, maxTaskChars: 5000 }), env: {} })
    expect(r.config.nudgeAfter).toBe(12)
    expect(r.config.maxTaskChars).toBe(300)
    expect(r.warnings).toEqual([
      "project todo.json: nudgeAfter: expected an integer from 1 to 1000, got 0; keeping 12.",
      "project todo.json: maxTaskChars: expected an integer from 20 to 2000, got 5000; keeping 300.",
    ])
  })

  test("non-integer number", () => {
    const r = resolveConfig({ env: {}, options: { maxTasks: 2.5 } })
    expect(r.config.maxTasks).toBe(200)
    expect(r.warnings).toEqual([
      "plugin options: maxTasks: expected an integer from 1 to 2000, got 2.5; keeping 200.",
    ])
  })

  test("unknown enum value", () => {
    const r = resolveConfig({
      globalText: json({ eager: "preferred" }),
      projectText: json({ eager: "sometimes" }),
      env: {},
    })
    expect(r.config.eager).toBe("preferred")
    expect(r.warnings).toEqual([
      'project todo.json: eager: expected one of "default", "preferred", "always", got "sometimes"; keeping "preferred".',
    ])
  })

  test("a boolean key given a string", () => {
    const r = resolveConfig({ globalText: json({ reminders: "false" }), env: {} })
    expect(r.config.reminders).toBe(true)
    expect(r.warnings).toEqual([
      'global todo.json: reminders: expected true or false, got "false"; keeping true.',
    ])
  })

  test("null and objects are wrong types too", () => {
    const r = resolveConfig({ projectText: json({ keepTodowrite: null, nudgesMax: { n: 1 } }), env: {} })
    expect(r.config).toEqual(DEFAULT_CONFIG)
    expect(r.warnings).toEqual([
      "project todo.json: keepTodowrite: expected true or false, got null; keeping false.",
      'project todo.json: nudgesMax: expected an integer from 0 to 20, got {"n":1}; keeping 2.',
    ])
  })

  test("long bad values are shortened in the warning", () => {
    const r = resolveConfig({ env: {}, options: { eager: "x".repeat(200) } })
    expect(r.warnings[0]).toBe(
      `plugin options: eager: expected one of "default", "preferred", "always", got "${"x".repeat(58)}…; keeping "default".`,
    )
  })

  test("invalid JSON file: one warning, the file is ignored, other layers still apply", () => {
    const r = resolveConfig({
      globalText: json({ remindersMax: 4 }),
      projectText: "{ remindersMax: 5 ",
      env: {},
      options: { nudgesMax: 1 },
    })
    expect(r.config).toEqual({ ...DEFAULT_CONFIG, remindersMax: 4, nudgesMax: 1 })
    expect(r.warnings).toHaveLength(1)
    expect(r.warnings[0]).toMatch(/^project todo\.json: not valid JSON \(.+\); file ignored\.$/)
  })

  test("a file whose top level is not an object", () => {
    expect(resolveConfig({ globalText: "[1,2]", env: {} }).warnings).toEqual([
      "global todo.json: expected an object of settings, got an array; ignored.",
    ])
    expect(resolveConfig({ projectText: "42", env: {} }).warnings).toEqual([
      "project todo.json: expected an object of settings, got a number; ignored.",
    ])
    expect(resolveConfig({ projectText: "null", env: {} }).warnings).toEqual([
      "project todo.json: expected an object of settings, got null; ignored.",
    ])
    expect(resolveConfig({ env: {}, options: "on" }).warnings).toEqual([
      "plugin options: expected an object of settings, got a string; ignored.",
    ])
  })

  test("an empty file is no config and no warning", () => {
    expect(resolveConfig({ globalText: "", projectText: "  \n", env: {} })).toEqual({
      config: DEFAULT_CONFIG,
      warnings: [],
    })
  })
})

describe("unknown keys", () => {
  test("warn with a suggestion when close to a known key", () => {
    const r = resolveConfig({
      projectText: json({ remindersMaxx: 4, nudge_after: 3, REMINDERS: false }),
      env: {},
    })
    expect(r.config).toEqual(DEFAULT_CONFIG)
    expect(r.warnings).toEqual([
      'project todo.json: unknown key "remindersMaxx" (did you mean "remindersMax"?); ignored.',
      'project todo.json: unknown key "nudge_after" (did you mean "nudgeAfter"?); ignored.',
      'project todo.json: unknown key "REMINDERS" (did you mean "reminders"?); ignored.',
    ])
  })

  test("warn without a suggestion when nothing is close", () => {
    expect(resolveConfig({ env: {}, options: { colour: "red" } }).warnings).toEqual([
      'plugin options: unknown key "colour"; ignored.',
    ])
  })

  test("$schema is accepted silently", () => {
    expect(
      resolveConfig({ globalText: json({ $schema: "https://example.invalid/s.json" }), env: {} }).warnings,
    ).toEqual([])
  })

  test("closestKey", () => {
    expect(closestKey("maxTask")).toBe("maxTasks")
    expect(closestKey("keep-todowrite")).toBe("keepTodowrite")
    expect(closestKey("banana")).toBeUndefined()
  })
})

describe("environment parsing", () => {
  test.each([
    ["true", true],
    ["TRUE", true],
    ["1", true],
    ["yes", true],
    ["On", true],
    [" on ", true],
    ["false", false],
    ["0", false],
    ["NO", false],
    ["off", false],
  ])("boolean %j -> %s", (raw, value) => {
    const base = { env: { OPENCODE_TODO_REMINDERS: raw }, globalText: json({ reminders: !value }) }
    expect(resolveConfig(base)).toEqual({ config: { ...DEFAULT_CONFIG, reminders: value }, warnings: [] })
  })

  test("a bad boolean warns naming the variable and keeps the previous value", () => {
    const r = resolveConfig({
      globalText: json({ reminders: false }),
      env: { OPENCODE_TODO_REMINDERS: "maybe" },
    })
    expect(r.config.reminders).toBe(false)
    expect(r.warnings).toEqual([
      'OPENCODE_TODO_REMINDERS (reminders): expected true or false, got "maybe"; keeping false.',
    ])
  })

  test("integers: trimmed, signs allowed, range checked, no decimals or words", () => {
    expect(resolveConfig({ env: { OPENCODE_TODO_REMINDERS_MAX: " 0 " } }).config.remindersMax).toBe(0)
    expect(resolveConfig({ env: { OPENCODE_TODO_REMINDERS_MAX: "+20" } }).config.remindersMax).toBe(20)
    for (const raw of ["21", "-1", "2.5", "three", "1e1", "0x5"]) {
      const r = resolveConfig({ env: { OPENCODE_TODO_REMINDERS_MAX: raw } })
      expect(r.config.remindersMax, raw).toBe(3)
      expect(r.warnings, raw).toEqual([
        `OPENCODE_TODO_REMINDERS_MAX (remindersMax): expected an integer from 0 to 20, got ${JSON.stringify(raw)}; keeping 3.`,
      ])
    }
  })

  test("eager is case-insensitive in the environment", () => {
    expect(resolveConfig({ env: { OPENCODE_TODO_EAGER: "Preferred" } }).config.eager).toBe("preferred")
    expect(resolveConfig({ env: { OPENCODE_TODO_EAGER: "never" } }).warnings).toEqual([
      'OPENCODE_TODO_EAGER (eager): expected one of "default", "preferred", "always", got "never"; keeping "default".',
    ])
  })

  test("mode: auto by default; todo.json, OPENCODE_TODO_MODE (any case) or options set full or lean; a bad value warns and keeps the last", () => {
    expect(resolveConfig({ env: {}, projectText: json({ mode: "lean" }) }).config.mode).toBe("lean")
    expect(resolveConfig({ env: { OPENCODE_TODO_MODE: " Lean " } }).config.mode).toBe("lean")
    expect(
      resolveConfig({ env: { OPENCODE_TODO_MODE: "lean" }, options: { mode: "full" } }).config.mode,
    ).toBe("full")
    const bad = resolveConfig({ env: { OPENCODE_TODO_MODE: "short" }, globalText: json({ mode: "full" }) })
    expect(bad.config.mode).toBe("full")
    expect(bad.warnings).toEqual([
      'OPENCODE_TODO_MODE (mode): expected one of "auto", "full", "lean", got "short"; keeping "full".',
    ])
  })

  test("OPENCODE_TODO_ENABLED disables", () => {
    expect(resolveConfig({ env: { OPENCODE_TODO_ENABLED: "off" } }).config.enabled).toBe(false)
  })

  test("an empty variable counts as unset", () => {
    expect(
      resolveConfig({
        env: { OPENCODE_TODO_EAGER: "", OPENCODE_TODO_REMINDERS_MAX: "  ", OPENCODE_TODO_ENABLED: undefined },
      }),
    ).toEqual({ config: DEFAULT_CONFIG, warnings: [] })
  })
})

test("resolveConfig does not mutate its inputs or the defaults", () => {
  const options = { remindersMax: 9 }
  const env = { OPENCODE_TODO_EAGER: "always" }
  const before = structuredClone(DEFAULT_CONFIG)
  resolveConfig({ env, options })
  expect(options).toEqual({ remindersMax: 9 })
  expect(env).toEqual({ OPENCODE_TODO_EAGER: "always" })
  expect(DEFAULT_CONFIG).toEqual(before)
})

describe("hostile config files", () => {
  const RAW = /[\u0000-\u001f\u007f-\u009f]/

  test("warnings are capped per source, however many unknown keys a file has", () => {
    const keys: Record<string, number> = {}
    for (let i = 0; i < 100_000; i++) keys[`junk${i}`] = i
    const { warnings } = resolveConfig({ env: {}, projectText: json({ ...keys, remindersMax: "x" }) })
    expect(warnings.length).toBeLessThanOrEqual(11)
    expect(warnings.at(-1)).toBe("project todo.json: 99991 more problems not shown; ignored.")
  })

  test("a long key name is previewed and skips the did-you-mean search; ESC and newlines are escaped", () => {
    const long = `remindersMax${"x".repeat(10 * 1024 * 1024)}`
    const { warnings } = resolveConfig({
      env: {},
      projectText: json({ [long]: 1, "a\u001b]2;PWNED\u0007\nb": 2 }),
    })
    expect(warnings).toHaveLength(2)
    expect(warnings[0]!.length).toBeLessThan(120)
    expect(warnings[0]).toBe(`project todo.json: unknown key "remindersMax${"x".repeat(17)}…"; ignored.`)
    expect(warnings[1]).not.toMatch(RAW)
    expect(warnings[1]).toContain("\\u001b")
  })

  test("a JSON error does not echo raw bytes of the file", () => {
    const { warnings } = resolveConfig({ env: {}, projectText: "\u001b[31m{" })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).not.toMatch(RAW)
  })

  test("says which source turned the plugin off", () => {
    expect(resolveConfig({ env: {}, projectText: json({ enabled: false }) }).disabled).toBe(
      "project todo.json sets enabled to false; the plugin is off.",
    )
    expect(resolveConfig({ env: { OPENCODE_TODO_ENABLED: "0" } }).disabled).toBe(
      "OPENCODE_TODO_ENABLED (enabled) sets enabled to false; the plugin is off.",
    )
    expect(resolveConfig({ env: {} }).disabled).toBeUndefined()
  })
})
