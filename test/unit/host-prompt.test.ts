// The host-prompt steering, on prompts laid out like the host's (headings and opening phrases as the
// host writes them, bodies written here): what is replaced, what is removed, what is left alone.
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import {
  findPassages,
  PASSAGES,
  promptFamily,
  type SteerInput,
  steerSystemPrompt,
} from "../../src/core/model/host-prompt.ts"

const NBSP = "\u00a0"

const ANTHROPIC = [
  "You are a coding agent in a terminal.",
  "",
  "# Tone and style",
  "- Be brief.",
  "",
  "# Task Management",
  "You have access to the TodoWrite tools. Use them often.",
  "",
  "Mark todos as completed the moment they are done.",
  "",
  "<example>",
  "user: build it",
  "assistant: I'm going to use the TodoWrite tool to write items to the todo list",
  "</example>",
  "",
  "",
  "# Doing tasks",
  "Steps to follow:",
  "- Use the TodoWrite tool to plan the task if required",
  "- Read before you edit.",
  "",
  "# Tool usage policy",
  "- Prefer dedicated tools.",
  "",
  "IMPORTANT: Always use the TodoWrite tool to plan and track tasks throughout the conversation.",
  "",
  "# Code References",
  "Cite file:line.",
].join("\n")

const MUSE = [
  "You are a coding agent.",
  "",
  `# Tool Use –${NBSP}File Operations`,
  "- Read before editing.",
  "",
  `# Tool Use –${NBSP}\`TodoWrite\` Tools`,
  "- You have access to the `TodoWrite` tools; use them.",
  "- Mark items completed when done.",
  "",
  "# Tool Use – `Task` Tool",
  "- Launch subagents for parallel work.",
].join("\n")

const BEAST = [
  "You are an agent that keeps going.",
  "",
  "Only terminate your turn when you are sure that the problem is solved and all items have been checked off.",
  "Verify each change.",
  "",
  'If the user request is "resume" or "continue", find the next open step in the todo list.',
  "Continue from it until all items are checked off.",
  "",
  "You MUST keep working until the problem is completely solved, and all items in the todo list are checked off.",
  "",
  "# Workflow",
  "4. Research the problem.",
  "5. Develop a clear, step-by-step plan. Show it as a todo list using emoji.",
  "6. Implement the fix.",
  "",
  "## 5. Develop a Detailed Plan ",
  "- Create a todo list in markdown format.",
  "- Check steps off using `[x]`.",
  "",
  "## 6. Making Code Changes",
  "- Read before editing.",
  "",
  "# Writing Prompts",
  "Write prompts in markdown.",
  "",
  "Remember that todo lists must always be written in markdown format and wrapped in triple backticks.",
  "",
  "# Git",
  "Commit only when asked.",
].join("\n")

const TITLE = "You are a title generator. You output ONLY a thread title.\n<rules>\n- one line\n</rules>"

const TOOL_NAMES = /TodoWrite|todowrite|todoread/

function steer(system: string[], modelId: string, extra: Partial<SteerInput> = {}) {
  return steerSystemPrompt({ system, modelId, todoCallable: true, warned: new Set(), ...extra })
}

describe("promptFamily", () => {
  test("follows the host's order of substrings", () => {
    expect(promptFamily("claude-sonnet-4")).toBe("anthropic")
    expect(promptFamily("muse-spark")).toBe("muse")
    expect(promptFamily("gpt-4.1")).toBe("beast")
    expect(promptFamily("o3-mini")).toBe("beast")
    expect(promptFamily("gpt-5")).toBe("gpt")
    expect(promptFamily("gemini-2.5-pro")).toBe("gemini")
    expect(promptFamily("Kimi-K2")).toBe("kimi")
    expect(promptFamily("k2", "moonshotai")).toBe("kimi")
    expect(promptFamily("Trinity-large")).toBe("trinity")
    expect(promptFamily("m")).toBe("default")
    // First match wins: an id naming two families gets the earlier one, as in the host.
    expect(promptFamily("claude-o1-muse")).toBe("muse")
    expect(promptFamily("claude-via-gpt-4o")).toBe("beast")
  })
})

describe("anthropic prompt", () => {
  test("all three passages point at todo; nothing names the built-in tool; the rest is untouched", () => {
    const out = steer([ANTHROPIC], "claude-sonnet-4")
    const text = out.system[0]!
    expect(out.steered).toHaveLength(3)
    expect(out.missing).toEqual([])
    expect(out.warning).toBeUndefined()
    expect(text).not.toMatch(TOOL_NAMES)
    expect(text).not.toContain("<example>")
    expect(text).toContain("# Task Management\nPlan work of three or more steps with the `todo` tool")
    expect(text).toContain("- Plan multi-step tasks with the `todo` tool\n- Read before you edit.")
    expect(text).toContain(
      "IMPORTANT: Plan and track multi-step work with the `todo` tool.\n\n# Code References",
    )
    // The blank lines before the next heading stay where the host put them.
    expect(text).toContain(
      "it is finished, not in a batch at the end; the next one then starts by itself.\n\n\n# Doing tasks",
    )
    for (const kept of ["# Tone and style\n- Be brief.", "- Prefer dedicated tools.", "Cite file:line."])
      expect(text).toContain(kept)
    expect(out.saved).toBe(ANTHROPIC.length - text.length)
  })

  test("an agent that cannot call todo gets the passages removed, the headings around them intact", () => {
    const out = steer([ANTHROPIC], "claude-sonnet-4", { todoCallable: false })
    const text = out.system[0]!
    expect(text).not.toMatch(TOOL_NAMES)
    expect(text).not.toMatch(/\btodos?\b/i)
    expect(text).not.toContain("# Task Management")
    expect(text).toContain(
      "# Tone and style\n- Be brief.\n\n# Doing tasks\nSteps to follow:\n- Read before you edit.",
    )
    expect(text).toContain("- Prefer dedicated tools.\n\n# Code References")
    expect(out.saved).toBeGreaterThan(0)
  })
})

test("findPassages measures each passage as the host wrote it", () => {
  const found = findPassages(ANTHROPIC, "claude-sonnet-4")
  expect(found.map((p) => p.name)).toEqual([
    "Task Management section",
    "Doing tasks bullet",
    "Tool usage policy IMPORTANT line",
  ])
  expect(found[1]!.chars).toBe("- Use the TodoWrite tool to plan the task if required".length)
  const section = ANTHROPIC.slice(
    ANTHROPIC.indexOf("# Task Management"),
    ANTHROPIC.indexOf("</example>") + 10,
  )
  expect(found[0]!.chars).toBe(section.length)
  expect(findPassages(ANTHROPIC, "m")).toEqual([])
})

describe("muse prompt", () => {
  test("the section is found under a heading with a no-break space and replaced up to the next heading", () => {
    const out = steer([MUSE], "muse-spark")
    const text = out.system[0]!
    expect(out.steered).toEqual(["TodoWrite Tools section"])
    expect(text).not.toMatch(TOOL_NAMES)
    expect(text).toContain("# Tool Use - `todo` Tool\n- Plan multi-step work")
    expect(text).toContain(`# Tool Use –${NBSP}File Operations\n- Read before editing.`)
    expect(text).toContain("one turn.\n\n# Tool Use – `Task` Tool")
  })

  test("removed for an agent that cannot call todo", () => {
    const text = steer([MUSE], "muse-spark", { todoCallable: false }).system[0]!
    expect(text).toBe(MUSE.replace(/# Tool Use –\u00a0`TodoWrite` Tools\n[^#]*/, ""))
  })
})

describe("beast prompt", () => {
  test("every passage asking for a list in the reply points at todo; numbering and other sections stay", () => {
    const out = steer([BEAST], "gpt-4.1")
    const text = out.system[0]!
    expect(out.steered).toHaveLength(6)
    for (const paragraph of text.split(/\n\s*\n/))
      if (/todo lists?|checked off|check (it|steps) off/i.test(paragraph))
        expect(paragraph).toContain("`todo`")
    expect(text).toContain("4. Research the problem.\n5. Plan the fix as small, incremental steps")
    expect(text).toContain("## 5. Develop a Detailed Plan\n- Outline specific")
    expect(text).toContain("instead of ending your turn.\n\n## 6. Making Code Changes")
    expect(text).toContain(
      "Write prompts in markdown.\n\nPlans live in the `todo` tool, not in your reply.\n\n# Git",
    )
  })

  test("left as written when the agent cannot call todo: the list in the reply is then the only list", () => {
    const out = steer([BEAST], "gpt-4.1", { todoCallable: false })
    expect(out.system[0]).toBe(BEAST)
    expect(out.warning).toBeUndefined()
  })
})

describe("what passes through untouched", () => {
  test("title requests and the default prompt keep their text and warn about nothing", () => {
    for (const modelId of ["claude-sonnet-4", "muse-spark", "gpt-4.1", "m"]) {
      const out = steer([TITLE], modelId)
      expect(out.system[0]).toBe(TITLE)
      expect(out.warning).toBeUndefined()
    }
    // A family's passages are looked for only in its own prompt.
    expect(steer([ANTHROPIC], "m").system[0]).toBe(ANTHROPIC)
    expect(steer([BEAST], "claude-sonnet-4").system[0]).toBe(BEAST)
  })

  test("a section with no heading after it could run into the environment block, so it is left alone", () => {
    const tail = "# Task Management\nUse the TodoWrite tools.\n<env>\n  Working directory: /p\n</env>"
    const out = steer([tail], "claude-sonnet-4")
    expect(out.system[0]).toBe(tail)
    expect(out.missing).toContain("Task Management section")
  })

  test("every entry of the system array is looked at; unchanged entries stay the same strings", () => {
    const out = steer(["extra instructions", ANTHROPIC], "claude-sonnet-4")
    expect(out.system[0]).toBe("extra instructions")
    expect(out.system[1]).not.toMatch(TOOL_NAMES)
  })

  test("text without the anchors is returned as it was, whatever it holds", () => {
    const families = ["claude-sonnet-4", "muse-spark", "gpt-4.1", "m"]
    const line = fc.oneof(
      fc.string(),
      fc.constantFrom("# Tasks", "## 5. Plan", "- TodoWrite", "IMPORTANT: use tools", "", "todo list"),
    )
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.constantFrom(...families),
        fc.boolean(),
        (lines, m, can) => {
          const text = lines.join("\n")
          fc.pre(!PASSAGES.some((p) => text.split("\n").some((l) => p.anchor.test(l))))
          expect(steer([text], m, { todoCallable: can }).system[0]).toBe(text)
        },
      ),
    )
  })

  test("steering is done once: a steered prompt steers to itself", () => {
    for (const [text, modelId] of [
      [ANTHROPIC, "claude-sonnet-4"],
      [MUSE, "muse-spark"],
      [BEAST, "gpt-4.1"],
    ] as const) {
      const once = steer([text], modelId).system[0]!
      const twice = steer([once], modelId)
      expect(twice.system[0]).toBe(once)
      expect(twice.warning).toBeUndefined()
    }
  })
})

describe("when the host's wording changes", () => {
  const renamed = ANTHROPIC.replace("# Task Management", "# Planning")

  test("the moved passage is left as written, the others are still steered, and it warns once", () => {
    const out = steer([renamed], "claude-sonnet-4")
    expect(out.steered).toEqual(["Doing tasks bullet", "Tool usage policy IMPORTANT line"])
    expect(out.missing).toEqual(["Task Management section"])
    expect(out.system[0]).toContain("# Planning\nYou have access to the TodoWrite tools.")
    expect(out.warning).toMatch(/anthropic system prompt .*Task Management section/)
    const again = steer([renamed], "claude-sonnet-4", { warned: new Set(["anthropic"]) })
    expect(again.warning).toBeUndefined()
    expect(again.system).toEqual(out.system)
  })

  test("a prompt still naming TodoWrite with none of the anchors is recognised and warned about", () => {
    const out = steer(["# Planning\nCall TodoWrite often."], "muse-spark")
    expect(out.system[0]).toBe("# Planning\nCall TodoWrite often.")
    expect(out.warning).toMatch(/muse/)
  })

  test("an agent's own prompt, with none of the family's text, is not a reason to warn", () => {
    const out = steer(["You review code. Be strict."], "claude-sonnet-4")
    expect(out.missing).toEqual([])
    expect(out.warning).toBeUndefined()
  })
})
