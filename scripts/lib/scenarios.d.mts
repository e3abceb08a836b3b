// Types of the parts of scenarios.mjs that TypeScript code imports (the benchmarks replay its plan; the demo's story test asks its script).

/** The plan every scripted scenario lays out first. */
export declare const PLAN: readonly { readonly phase: string; readonly items: readonly string[] }[]
/** The plan's task texts, in order. */
export declare const TASKS: readonly string[]

/** The demo's plan, the task its user drops in the dialog, and the model's replies before and after the reminder. */
export declare const DEMO_PLAN: readonly { readonly phase: string; readonly items: readonly string[] }[]
export declare const DEMO_USER_DROPS: string
type Reply =
  | { readonly text: string }
  | { readonly toolCalls: readonly { readonly name: string; readonly args: Record<string, unknown> }[] }
export declare const DEMO_FIRST: readonly Reply[]
export declare const DEMO_AFTER_REMINDER: readonly Reply[]

/** The scripted model's reply to a request (undefined: the model's default), by the scenario its first prompt names. */
export declare function decide(
  body: unknown,
  info: {
    readonly kind: string
    readonly toolNames?: readonly string[]
    readonly toolResults: readonly { readonly id?: string; readonly name?: string }[]
    readonly userCount?: number
  },
): Reply | undefined
