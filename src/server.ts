// The server entry (exports["./server"]): the host loads a module's default export, so this file
// exports nothing else; the hooks live in plugin.ts.
import { PLUGIN_ID } from "./core/words.ts"
import { server } from "./plugin.ts"

export default { id: PLUGIN_ID, server }
