// Types of the parts of scenarios.mjs that TypeScript code imports (the benchmarks replay its plan).

/** The plan every scripted scenario lays out first. */
export declare const PLAN: readonly { readonly phase: string; readonly items: readonly string[] }[]
/** The plan's task texts, in order. */
export declare const TASKS: readonly string[]
