// docs/layout.md is generated from the tree (scripts/layout.mjs): a file added, moved or renamed without
// regenerating the page fails here, so the page never lists a file that is gone or misses one.
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { expect, it } from "vitest"

it("docs/layout.md lists the tree as it is", () => {
  const script = join(import.meta.dirname, "..", "..", "scripts", "layout.mjs")
  const run = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" })
  expect(run.stderr).toBe("")
  expect(run.status).toBe(0)
})
