import { describe, expect, it } from "vitest"
import {
  FILE_MAX,
  FUNCTION_MAX,
  functionLengths,
  HEADER_MAX,
  headerLines,
  sizeViolations,
} from "../../scripts/lib/sizes.mjs"
import { plant } from "../fixtures/src-tree.ts"

/** `n` lines of statements. */
const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join("\n")
/** A function declaration `n` lines long, braces included. */
const fn = (name: string, n: number) => `export function ${name}() {\n${body(n - 2)}\n}\n`

describe("the size rule", () => {
  it("counts a function from its first line to its closing brace, each kind and each nested one", () => {
    const text = [
      "export function outer() {", // 1
      "  const inner = () => {", // 2
      "    return 1", // 3
      "  }", // 4
      "  return inner", // 5
      "}", // 6
      "class C {", // 7
      "  method() {", // 8
      "    return function () {", // 9
      "      return 2", // 10
      "    }", // 11
      "  }", // 12
      "}", // 13
      "const x = { y: async () => 3 }", // 14
    ].join("\n")
    expect(functionLengths(text)).toEqual([
      { name: "outer", line: 1, lines: 6 },
      { name: "inner", line: 2, lines: 3 },
      { name: "method", line: 8, lines: 5 },
      { name: "(anonymous, line 9)", line: 9, lines: 3 },
      { name: "y", line: 14, lines: 1 },
    ])
  })

  it("lets a file or function at the limits pass", () => {
    const lines = `${fn("atLimit", FUNCTION_MAX)}${body(FILE_MAX - FUNCTION_MAX)}\n`
    const root = plant({ "server/ok.ts": lines, "tui/ok.tsx": "export const C = () => <box />\n" })
    expect(sizeViolations(root)).toEqual([])
  })

  it("catches a long file outside the core, and only there", () => {
    const long = `${body(FILE_MAX + 1)}\n`
    const root = plant({ "core/list/long.ts": long, "shared/long.ts": long })
    expect(sizeViolations(root)).toEqual([
      { file: "shared/long.ts", problem: `${FILE_MAX + 1} lines, over ${FILE_MAX} (outside src/core/)` },
    ])
  })

  it("catches a long function anywhere, the core included", () => {
    const root = plant({ "core/list/f.ts": fn("long", FUNCTION_MAX + 1) })
    expect(sizeViolations(root)).toEqual([
      {
        file: "core/list/f.ts",
        problem: `function long (line 1) is ${FUNCTION_MAX + 1} lines, over ${FUNCTION_MAX}`,
      },
    ])
  })

  it("counts a factory whole, its closures included, however short each closure is", () => {
    const closures = Array.from({ length: 40 }, (_, i) => `    c${i}: () => {\n      return ${i}\n    },`)
    const text = ["export function factory() {", "  return {", ...closures, "  }", "}", ""].join("\n")
    const root = plant({ "store/factory.ts": text })
    expect(sizeViolations(root)).toEqual([
      {
        file: "store/factory.ts",
        problem: `function factory (line 1) is ${40 * 3 + 4} lines, over ${FUNCTION_MAX}`,
      },
    ])
  })

  it("catches a module header longer than HEADER_MAX lines, anywhere in src/", () => {
    const header = (n: number) => `${Array.from({ length: n }, (_, i) => `// line ${i}`).join("\n")}\n`
    expect(headerLines(`${header(HEADER_MAX)}\nexport const a = 1\n`)).toBe(HEADER_MAX)
    expect(headerLines("export const a = 1\n// not a header\n")).toBe(0)
    const src = plant({
      "core/list/short.ts": `${header(HEADER_MAX)}export const a = 1\n`,
      "core/list/long.ts": `${header(HEADER_MAX + 1)}export const a = 1\n`,
      "tui/long.ts": `${header(HEADER_MAX + 3)}\nexport const a = 1\n`,
    })
    expect(sizeViolations(src)).toEqual([
      { file: "core/list/long.ts", problem: `its header is ${HEADER_MAX + 1} lines, over ${HEADER_MAX}` },
      { file: "tui/long.ts", problem: `its header is ${HEADER_MAX + 3} lines, over ${HEADER_MAX}` },
    ])
  })

  it("passes an allowlisted file, and says when it keeps the rule or is gone", () => {
    const root = plant({
      "server/v2.ts": `${fn("setup", FUNCTION_MAX + 5)}${body(FILE_MAX)}\n`,
      "tui/dialog.ts": fn("short", 3),
    })
    const allowed = {
      "server/v2.ts": "issue 38, being split",
      "tui/dialog.ts": "issue 38, being split",
      "server/gone.ts": "issue 38, being split",
    }
    expect(sizeViolations(root, allowed)).toEqual([
      { file: "tui/dialog.ts", problem: "keeps the size rule now: take it off the allowlist" },
      { file: "server/gone.ts", problem: "is on the allowlist but is not in src/" },
    ])
  })
})
