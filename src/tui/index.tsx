// The TUI entry both hosts load. OpenCode 1.18 calls `tui(api, options)` (v1/index.tsx) and checks only `id`
// and `tui`; OpenCode 2 calls `setup(context)` (v2/index.tsx) and checks only `id` and `setup`; so one
// default export carries both. Only types come from the host packages (why: docs/design.md).

import { PLUGIN_ID } from "../core/list/words.ts"
import { tui } from "./v1/index.tsx"
import { setup } from "./v2/index.tsx"

const plugin = { id: PLUGIN_ID, tui, setup }

export default plugin
