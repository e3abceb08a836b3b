// The server entry (exports["./server"]), one module for both hosts: OpenCode 1.18 calls `server` (hooks.ts),
// OpenCode 2 calls `setup` (v2.ts). A 1.x host that calls `setup` too gets nothing from it (v2.ts registers only
// on a context with a tool registry and session hooks). The host loads the default export, so this file exports
// nothing else.
import { PLUGIN_ID } from "../core/list/words.ts"
import { server } from "./hooks.ts"
import { setupV2 } from "./v2.ts"

export default {
  id: PLUGIN_ID,
  server,
  setup: (context: unknown) => setupV2(context),
}
