// The host-prompt steering, on system texts laid out like the host's (its prompt's first words, headings
// and opening phrases as the host writes them, bodies written here; then its environment block, then the
// user's AGENTS.md): what is replaced, what is removed, what is left alone, byte for byte.
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import {
  findPassages,
  PASSAGES,
  promptFamily,
  type SteerInput,
  steerSystemPrompt,
  V2_PASSAGES,
  v2PromptFamily,
} from "../../src/core/model/host-prompt.ts"
import {
  ANTHROPIC_2,
  ANTHROPIC_2_DOING_TASKS_BULLET,
  ANTHROPIC_2_IMPORTANT_LINE,
  ANTHROPIC_2_TASK_MANAGEMENT,
  BEAST_2,
} from "../fixtures/v2-prompts.ts"

const NBSP = "\u00a0"

const ANTHROPIC = [
  "You are OpenCode, the best coding agent on the planet.",
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
  "You are OpenCode, a coding agent that helps users with software engineering tasks. You run here.",
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
  "You are opencode, an agent - please keep going until the user is helped.",
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
  "- Outline a specific, simple, and verifiable sequence of steps.",
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

/** The environment block the host puts right after its own prompt. */
const environment = (modelId: string) =>
  [
    `You are powered by the model named ${modelId}. The exact model ID is mock/${modelId}`,
    "Here is some useful information about the environment you are running in:",
    "<env>",
    "  Working directory: /p",
    "</env>",
  ].join("\n")

/** One system text as the host joins it: a prompt, the environment, then whatever the user added. */
const joined = (prompt: string, modelId: string, ...after: string[]) =>
  [prompt, environment(modelId), ...after].join("\n")

/** The system texts after steering, for raw system arrays (no environment added). */
function steerRaw(system: string[], modelId: string, extra: Partial<SteerInput> = {}) {
  return steerSystemPrompt({ system, modelId, todoCallable: true, warned: new Set(), ...extra })
}

/** Steers `prompt` placed as the host places it; `system` is the whole text, `prompt` its first part. */
function steer(prompt: string, modelId: string, extra: Partial<SteerInput> = {}) {
  const out = steerRaw([joined(prompt, modelId)], modelId, extra)
  const text = out.system[0]!
  const tail = `\n${environment(modelId)}`
  expect(text.endsWith(tail)).toBe(true)
  return { ...out, prompt: text.slice(0, -tail.length) }
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
    const out = steer(ANTHROPIC, "claude-sonnet-4")
    const text = out.prompt
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
    const out = steer(ANTHROPIC, "claude-sonnet-4", { todoCallable: false })
    const text = out.prompt
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
  const found = findPassages(joined(ANTHROPIC, "claude-sonnet-4"), "claude-sonnet-4")
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
  expect(findPassages(joined(ANTHROPIC, "m"), "m")).toEqual([])
  // Without the environment block the prompt's end is unknown: nothing is measured.
  expect(findPassages(ANTHROPIC, "claude-sonnet-4")).toEqual([])
})

describe("muse prompt", () => {
  test("the section is found under a heading with a no-break space and replaced up to the next heading", () => {
    const out = steer(MUSE, "muse-spark")
    const text = out.prompt
    expect(out.steered).toEqual(["TodoWrite Tools section"])
    expect(text).not.toMatch(TOOL_NAMES)
    expect(text).toContain("# Tool Use - `todo` Tool\n- Plan multi-step work")
    expect(text).toContain(`# Tool Use –${NBSP}File Operations\n- Read before editing.`)
    expect(text).toContain("one turn.\n\n# Tool Use – `Task` Tool")
  })

  test("removed for an agent that cannot call todo", () => {
    const text = steer(MUSE, "muse-spark", { todoCallable: false }).prompt
    expect(text).toBe(MUSE.replace(/# Tool Use –\u00a0`TodoWrite` Tools\n[^#]*/, ""))
  })
})

describe("beast prompt", () => {
  test("every passage asking for a list in the reply points at todo; numbering and other sections stay", () => {
    const out = steer(BEAST, "gpt-4.1")
    const text = out.prompt
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
    const out = steer(BEAST, "gpt-4.1", { todoCallable: false })
    expect(out.prompt).toBe(BEAST)
    expect(out.warning).toBeUndefined()
  })
})

describe("what passes through untouched", () => {
  test("title requests and the default prompt keep their text and warn about nothing", () => {
    for (const modelId of ["claude-sonnet-4", "muse-spark", "gpt-4.1", "m"]) {
      const out = steerRaw([TITLE], modelId)
      expect(out.system[0]).toBe(TITLE)
      expect(out.warning).toBeUndefined()
    }
    // A family's passages are looked for only in its own prompt.
    expect(steer(ANTHROPIC, "m").prompt).toBe(ANTHROPIC)
    expect(steer(BEAST, "claude-sonnet-4").prompt).toBe(BEAST)
  })

  test("a section with no heading after it in the host's prompt is left alone", () => {
    const prompt = `${ANTHROPIC.split("\n")[0]}\n\n# Task Management\nYou have access to the TodoWrite tools.`
    const out = steer(prompt, "claude-sonnet-4")
    expect(out.prompt).toBe(prompt)
    expect(out.missing).toContain("Task Management section")
  })

  test("the host's prompt is found in whichever entry opens with it; other entries stay the same strings", () => {
    const out = steerRaw(["extra instructions", joined(ANTHROPIC, "claude-sonnet-4")], "claude-sonnet-4")
    expect(out.system[0]).toBe("extra instructions")
    expect(out.system[1]).not.toMatch(TOOL_NAMES)
  })

  test("without its environment block the prompt's end is unknown: nothing is steered, and it warns", () => {
    const out = steerRaw([ANTHROPIC], "claude-sonnet-4")
    expect(out.system[0]).toBe(ANTHROPIC)
    expect(out.steered).toEqual([])
    expect(out.warning).toMatch(/anthropic/)
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
          expect(steerRaw([text], m, { todoCallable: can }).system[0]).toBe(text)
          expect(steer(text, m, { todoCallable: can }).prompt).toBe(text)
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
      const once = steer(text, modelId).system[0]!
      const twice = steerRaw([once], modelId)
      expect(twice.system[0]).toBe(once)
      expect(twice.warning).toBeUndefined()
    }
  })
})

describe("when the host's wording changes", () => {
  const renamed = ANTHROPIC.replace("# Task Management", "# Planning")

  test("the moved passage is left as written, the others are still steered, and it warns once", () => {
    const out = steer(renamed, "claude-sonnet-4")
    expect(out.steered).toEqual(["Doing tasks bullet", "Tool usage policy IMPORTANT line"])
    expect(out.missing).toEqual(["Task Management section"])
    expect(out.prompt).toContain("# Planning\nYou have access to the TodoWrite tools.")
    expect(out.warning).toMatch(/anthropic system prompt .*Task Management section/)
    const again = steer(renamed, "claude-sonnet-4", { warned: new Set(["anthropic"]) })
    expect(again.warning).toBeUndefined()
    expect(again.system).toEqual(out.system)
  })

  test("the host's prompt still naming TodoWrite with none of the anchors is recognised and warned about", () => {
    const prompt = `${MUSE.split("\n")[0]}\n\n# Planning\nCall TodoWrite often.`
    const out = steer(prompt, "muse-spark")
    expect(out.prompt).toBe(prompt)
    expect(out.warning).toMatch(/muse/)
  })

  test("an agent's own prompt, even one naming TodoWrite, is not a reason to warn", () => {
    const out = steer("You review code. Be strict. Never call TodoWrite.", "claude-sonnet-4")
    expect(out.missing).toEqual([])
    expect(out.warning).toBeUndefined()
  })
})

describe("the user's instructions are never touched", () => {
  // An AGENTS.md that repeats every heading and opening phrase the steering looks for, each with the
  // first words the host's own passage has, between the user's own rules.
  const AGENTS_MD = [
    "Instructions from: /p/AGENTS.md",
    "# Task Management",
    "You have access to the TodoWrite tools of our tracker. All work is tracked in Linear.",
    "Never push to main.",
    "",
    "# Doing tasks",
    "- Use the TodoWrite tool to plan releases with the release manager",
    "",
    "IMPORTANT: Always use the TodoWrite tool to plan and track tasks in Linear.",
    "",
    "# Tool Use – `TodoWrite` Tools",
    "- You have access to the `TodoWrite` tools in the tracker.",
    "",
    "Only terminate your turn when you are sure that the problem is solved and CI is green.",
    "Run the full suite.",
    "",
    'If the user request is "resume", read NOTES.md first.',
    "",
    "You MUST keep working until the problem is completely solved or you are blocked.",
    "",
    "# Workflow",
    "5. Develop a clear, step-by-step plan in PLAN.md.",
    "",
    "## 5. Develop a Detailed Plan",
    "- Outline a specific, simple, and verifiable sequence of commits.",
    "",
    "Remember that todo lists must always be written in markdown tables here.",
    "",
    "# Git",
    "Sign every commit.",
  ].join("\n")
  const USER_SYSTEM = "# Task Management\nYou have access to the TodoWrite tools? No: use the issue tracker."
  const OWN_PROMPT = "You are a planner for this repository. Read before you write."
  const EXPLORE = "You are a file search specialist. You excel at navigating codebases."
  const models = ["claude-sonnet-4", "muse-spark", "gpt-4.1"]

  for (const [agent, prompt] of [
    ["an agent with its own prompt", OWN_PROMPT],
    ["a subagent with its own prompt", EXPLORE],
  ] as const)
    for (const todoCallable of [true, false])
      test(`${agent} (${todoCallable ? "can" : "cannot"} call todo): the whole text is byte-identical, nothing logged`, () => {
        for (const modelId of models) {
          const text = joined(prompt, modelId, AGENTS_MD, USER_SYSTEM)
          const out = steerRaw([text], modelId, { todoCallable })
          expect(out.system[0]).toBe(text)
          expect(out.steered).toEqual([])
          expect(out.missing).toEqual([])
          expect(out.warning).toBeUndefined()
        }
      })

  test("under the host's own prompt, its passages are steered and the user's text after it is byte-identical", () => {
    for (const [prompt, modelId] of [
      [ANTHROPIC, "claude-sonnet-4"],
      [MUSE, "muse-spark"],
      [BEAST, "gpt-4.1"],
    ] as const)
      for (const todoCallable of [true, false]) {
        const user = `\n${environment(modelId)}\n${AGENTS_MD}\n${USER_SYSTEM}`
        const out = steerRaw([`${prompt}${user}`], modelId, { todoCallable })
        const text = out.system[0]!
        expect(text.endsWith(user)).toBe(true)
        expect(text.slice(0, -user.length)).toBe(steer(prompt, modelId, { todoCallable }).prompt)
        expect(out.warning).toBeUndefined()
      }
  })

  test("a user's text that opens with a heading the host uses, in a separate entry, is left alone", () => {
    const out = steerRaw([joined(ANTHROPIC, "claude-sonnet-4"), AGENTS_MD], "claude-sonnet-4")
    expect(out.system[1]).toBe(AGENTS_MD)
    expect(out.steered).toHaveLength(3)
  })
})

describe("OpenCode 2's prompts (the host's own text, test/fixtures/v2-prompts.ts)", () => {
  /** Steers OpenCode 2's first system part; the parts after it are the user's. */
  const steer2 = (system: string[], modelId: string, extra: Partial<SteerInput> = {}) =>
    steerSystemPrompt({ system, modelId, todoCallable: true, warned: new Set(), host: "2", ...extra })

  test("picks the family as OpenCode 2 does: the id lower-cased", () => {
    expect(v2PromptFamily("Claude-Sonnet-4")).toBe("anthropic")
    expect(v2PromptFamily("gpt-4.1")).toBe("beast")
    expect(v2PromptFamily("gpt-5")).toBe("gpt")
    expect(v2PromptFamily("muse-spark")).toBe("default")
  })

  test("each of the Anthropic prompt's three todowrite passages points at todo; the rest is byte-identical", () => {
    const out = steer2([ANTHROPIC_2], "claude-sonnet-4")
    expect(out.steered).toEqual(V2_PASSAGES.map((p) => p.name))
    expect(out.warning).toBeUndefined()
    const text = out.system[0]!
    expect(text).not.toMatch(TOOL_NAMES)
    const expected = ANTHROPIC_2.replace(
      ANTHROPIC_2_TASK_MANAGEMENT,
      "# Task Management\nPlan work of three or more steps with the `todo` tool: phases of tasks, each task addressed by its exact text. Keep one task in progress and mark it done as soon as it is finished, not in a batch at the end; the next one then starts by itself.",
    )
      .replace(ANTHROPIC_2_DOING_TASKS_BULLET, "- Plan multi-step tasks with the `todo` tool")
      .replace(ANTHROPIC_2_IMPORTANT_LINE, "IMPORTANT: Plan and track multi-step work with the `todo` tool.")
    expect(text).toBe(expected)
    // The host's empty bullet before the todowrite one is the host's, not ours to remove.
    expect(text).toContain("recommended:\n- \n- Plan multi-step tasks")
  })

  test("an agent that cannot call todo gets the three passages removed and nothing else", () => {
    const text = steer2([ANTHROPIC_2], "claude-sonnet-4", { todoCallable: false }).system[0]!
    expect(text).not.toMatch(TOOL_NAMES)
    expect(text).not.toContain("# Task Management")
    expect(text).toContain("Be accurate.\n\n# Doing tasks\n")
    expect(text).toContain("recommended:\n- \n\n- Tool results")
    expect(text).toContain("- Prefer dedicated tools.\n\n# Code References")
  })

  test("steered once: a steered prompt steers to itself and warns about nothing", () => {
    const once = steer2([ANTHROPIC_2], "claude-sonnet-4").system[0]!
    const twice = steer2([once], "claude-sonnet-4")
    expect(twice.system[0]).toBe(once)
    expect(twice.warning).toBeUndefined()
  })

  test("the parts after the host's are the user's (instructions, AGENTS.md, other plugins): never touched", () => {
    // Text of our own that repeats the host's headings and first words, as a user's file or a plugin might.
    const user = [
      "# Task Management",
      "You have access to the todowrite tool of our tracker. All work is tracked in Linear.",
      "",
      "# Doing tasks",
      "- Use the todowrite tool to plan the task with the release manager",
      "",
      "IMPORTANT: Always use the todowrite tool to plan and track tasks in Linear.",
    ].join("\n")
    for (const todoCallable of [true, false]) {
      const out = steer2([ANTHROPIC_2, user], "claude-sonnet-4", { todoCallable })
      expect(out.system[1]).toBe(user)
      expect(out.steered).toHaveLength(3)
    }
  })

  test("text that only resembles the host's passages is left as it is", () => {
    const own = [
      "You are a planner for this repository.",
      "",
      "# Task Management",
      "You have access to the todowrite tool to help you manage and plan tasks.",
      "",
      "# Doing tasks",
      ANTHROPIC_2_DOING_TASKS_BULLET,
      ANTHROPIC_2_IMPORTANT_LINE,
    ].join("\n")
    // An agent's own prompt in the first part: not the host's, whatever it says; nothing logged.
    const agent = steer2([own], "claude-sonnet-4")
    expect(agent.system[0]).toBe(own)
    expect(agent.warning).toBeUndefined()
    // The 1.18 wording under OpenCode 2's first words: not a 2.x passage.
    const old = `${ANTHROPIC_2.split("\n")[0]}\n\n# Task Management\nYou have access to the TodoWrite tools to help you.\n\n# Doing tasks\n- Use the TodoWrite tool to plan the task if required\n`
    expect(steer2([old], "claude-sonnet-4").system[0]).toBe(old)
    // A near miss of each anchor: a different tool name, a different sentence.
    for (const [from, to] of [
      ["You have access to the todowrite tool", "You have access to the todoread tool"],
      ["- Use the todowrite tool to plan the task", "- Use the todowrite tool to plan a release"],
      [
        "IMPORTANT: Always use the todowrite tool to plan and track tasks",
        "IMPORTANT: Always use the todowrite tool sparingly",
      ],
    ] as const) {
      const changed = ANTHROPIC_2.replace(from, to)
      const out = steer2([changed], "claude-sonnet-4")
      expect(out.steered).toHaveLength(2)
      expect(out.system[0]).toContain(to)
    }
  })

  test("2.x's beast prompt keeps 1.18's first words without a todo list: on 2 it is left as it is", () => {
    // On 1.18's table every one of these sentences would be rewritten to name the todo tool.
    expect(steerRaw([`${BEAST_2}`], "gpt-4.1").steered).toEqual([])
    const out = steer2([BEAST_2], "gpt-4.1")
    expect(out.system[0]).toBe(BEAST_2)
    expect(out.steered).toEqual([])
    expect(out.warning).toBeUndefined()
    const joinedOn118 = steerRaw([`${BEAST_2}${environment("gpt-4.1")}`], "gpt-4.1")
    expect(joinedOn118.steered.length).toBeGreaterThan(0)
  })

  test("a 2.x Anthropic prompt with no todo passages (the later one) is left alone with no warning", () => {
    const later = ANTHROPIC_2.replace(`${ANTHROPIC_2_TASK_MANAGEMENT}\n\n\n`, "")
      .replace(`- \n${ANTHROPIC_2_DOING_TASKS_BULLET}\n\n`, "")
      .replace(`${ANTHROPIC_2_IMPORTANT_LINE}\n\n`, "")
    expect(later).not.toMatch(TOOL_NAMES)
    const out = steer2([later], "claude-sonnet-4")
    expect(out.system[0]).toBe(later)
    expect(out.warning).toBeUndefined()
  })

  test("a 2.x prompt still naming todowrite where none of the passages is found is warned about once", () => {
    const moved = ANTHROPIC_2.replace("# Task Management", "# Planning")
      .replace(ANTHROPIC_2_DOING_TASKS_BULLET, "- Plan with todowrite")
      .replace(ANTHROPIC_2_IMPORTANT_LINE, "")
    const out = steer2([moved], "claude-sonnet-4")
    expect(out.steered).toEqual([])
    expect(out.warning).toMatch(/OpenCode 2 anthropic system prompt/)
    expect(steer2([moved], "claude-sonnet-4", { warned: new Set(["anthropic"]) }).warning).toBeUndefined()
  })
})
