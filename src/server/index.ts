// The server entry (exports["./server"]): the host loads a module's default export, so this file
// exports nothing else; the hooks live in hooks.ts.
import { PLUGIN_ID } from "../core/list/words.ts"
import { server } from "./hooks.ts"

export default { id: PLUGIN_ID, server }
