// The TUI entry both hosts load. OpenCode 1.18 calls `tui(api, options)` (v1/index.tsx); OpenCode 2 calls
// `setup(context)` (v2/index.tsx). 1.18 checks only `id` and `tui` (it ignores `setup`), OpenCode 2
// only `id` and `setup`, so one default export carries both. Only types come from the host packages:
// OpenCode 2's `@opencode/plugin/tui` exists only inside its TUI (and `Plugin.define` is the identity
// there), so nothing here imports it; solid-js and @opentui/solid are the host's own copies at run time.

import { PLUGIN_ID } from "../core/list/words.ts"
import { tui } from "./v1/index.tsx"
import { setup } from "./v2/index.tsx"

const plugin = { id: PLUGIN_ID, tui, setup }

export default plugin
