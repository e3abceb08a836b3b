// Build for the two plugin entries the host loads separately: the server plugin (dist/server.mjs,
// with types) and the TUI plugin (dist/tui.mjs), plus the OpenCode 2 RPC contract (dist/rpc.mjs). The
// TUI entry is JSX for @opentui/solid; the host only compiles .tsx outside node_modules, so a published
// package has to ship it compiled with Solid's universal transform, importing solid-js and @opentui/*
// from the host at run time. A last output, dist/text-width.mjs, is for this repository's scripts
// (scripts/lib/tui.mjs reads the terminal with the core's text width, not a copy): no package export,
// and package.json's `files` leaves it out of the package.
import { defineConfig, type Rolldown } from "tsdown"
import { solidUniversal } from "./scripts/lib/solid-universal.ts"

// Imports the host resolves to its own copies (one Solid runtime, one renderer) or that carry
// types only. Bundling any of them would give the plugin a second, disconnected Solid instance.
const hostProvided = [/^solid-js(\/|$)/, /^@opentui\//, /^@opencode-ai\/plugin(\/|$)/]

const shared = {
  format: "esm",
  platform: "node",
  outDir: "dist",
  fixedExtension: true,
  // tsdown empties dist/ once, before both builds run.
  clean: true,
  deps: { neverBundle: hostProvided },
  // Rolldown's note that a plugin took long is about the machine's load, not the build.
  checks: { pluginTimings: false },
} as const

export default defineConfig([
  {
    ...shared,
    // rpc: the server<->TUI contract on OpenCode 2 (src/shared/v2-rpc.ts), which the host looks for at "./rpc".
    entry: { server: "src/server/index.ts", rpc: "src/shared/v2-rpc.ts" },
    dts: true,
  },
  {
    ...shared,
    entry: { tui: "src/tui/index.tsx" },
    dts: false,
    plugins: [solidUniversal() as Rolldown.Plugin],
  },
  {
    ...shared,
    entry: { "text-width": "src/core/list/text-width.ts" },
    dts: false,
  },
  {
    ...shared,
    // The tool's texts and one call, for scripts/try-tool.mjs (not in the package); a build of its own, so
    // the server entry shares no chunk with it.
    entry: { "tool-trial": "src/server/tool-trial.ts" },
    dts: false,
  },
])
