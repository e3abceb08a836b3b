// What scripts/demo.mjs needs from the TypeScript sources, as one entry it bundles at start (Node 20
// cannot run .ts): the story's text and checks, the dialog's path for the user's edit on 1.18, and the
// decoders of the plugin's RPC answers on OpenCode 2.

export { MARKER } from "../../src/core/model/prompts.ts"
export { todoDir } from "../../src/shared/paths.ts"
export { decodeListOutput, decodeRunOutput } from "../../src/shared/v2-rpc.ts"
export * from "./demo-checks.ts"
export * from "./demo-story.ts"
export * from "./demo-user.ts"
