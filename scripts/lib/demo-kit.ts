// What scripts/demo.mjs needs from the TypeScript sources, as one entry it bundles at start (Node 20
// cannot run .ts): the story's text and checks, and the dialog's path for the user's edit.

export { MARKER } from "../../src/core/model/prompts.ts"
export { todoDir } from "../../src/shared/paths.ts"
export * from "./demo-checks.ts"
export * from "./demo-story.ts"
export * from "./demo-user.ts"
