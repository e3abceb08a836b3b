// The TypeScript pieces the end-to-end scripts share (scripts/lib/demo-kit.ts: the demo's story and checks,
// the /todo dialog's path for a user's edit, the plugin's folders), bundled at start into a temporary
// module: Node 20 does not run TypeScript.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

export async function loadKit() {
  const { build } = await import("tsdown")
  const outDir = mkdtempSync(join(tmpdir(), "opencode-todo-kit-"))
  try {
    await build({
      config: false,
      entry: { kit: join(root, "scripts", "lib", "demo-kit.ts") },
      outDir,
      format: "esm",
      platform: "node",
      dts: false,
      fixedExtension: true,
      logLevel: "silent",
    })
    return await import(pathToFileURL(join(outDir, "kit.mjs")).href)
  } finally {
    rmSync(outDir, { recursive: true, force: true })
  }
}
