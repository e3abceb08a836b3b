// Which guidance a model gets: the table of model families that plan unaided, and the config's mode over it.
import { describe, expect, test } from "vitest"
import { guidanceFor, offersSkill, PLANS_UNAIDED, plansUnaided } from "../../src/core/model/mode.ts"

describe("the families that plan unaided", () => {
  test.each([
    "claude-sonnet-4-5",
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-5",
    "claude-haiku-4-5",
    "claude-opus-4.6",
    "anthropic/claude-sonnet-4.5",
    "claude-opus-5",
    "claude-4.5-sonnet",
    "gpt-5.1",
    "gpt-5.1-codex",
    "gpt-5.2",
    "openai/gpt-5.1-codex-max",
    "GPT-5.1",
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "claude-sonnet-4-5@20250929",
  ])("%s plans unaided", (id) => {
    expect(plansUnaided(id)).toBe(true)
  })

  test.each([
    "",
    "m",
    "claude-sonnet-4",
    "claude-sonnet-4-20250514",
    "claude-opus-4-1",
    "claude-3-7-sonnet",
    "claude-4-sonnet",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-codex",
    "gpt-4.1",
    "gpt-oss-120b",
    "gemini-2.5-pro",
    "qwen3-coder",
    "my-claude-sonnet-4-5",
    "claude-".repeat(20_000),
  ])("%s gets the full guidance", (id) => {
    expect(plansUnaided(id)).toBe(false)
  })

  test("every row names its family and says why", () => {
    for (const row of PLANS_UNAIDED) {
      expect(row.family.length).toBeGreaterThan(0)
      expect(row.why.length).toBeGreaterThan(0)
    }
  })
})

describe("the config's mode over the table", () => {
  test("auto follows the model", () => {
    expect(guidanceFor("auto", "claude-sonnet-4-5")).toBe("lean")
    expect(guidanceFor("auto", "claude-sonnet-4")).toBe("full")
    expect(guidanceFor("auto", undefined)).toBe("full")
  })

  test("full and lean hold for every model", () => {
    expect(guidanceFor("full", "claude-sonnet-4-5")).toBe("full")
    expect(guidanceFor("lean", "claude-sonnet-4")).toBe("lean")
    expect(guidanceFor("lean", undefined)).toBe("lean")
  })
})

test("the skill is offered except in mode lean (auto registers it once for every model a process serves)", () => {
  expect(offersSkill("auto")).toBe(true)
  expect(offersSkill("full")).toBe(true)
  expect(offersSkill("lean")).toBe(false)
})
