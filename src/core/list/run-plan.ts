// The one dispatch of a parsed `/todo` line: `runPlan` hands a CommandPlan (command.ts) to the effect for its kind.
// The server's /todo and the TUI's typed verbs each give a whole table of effects, so a new verb kind is a type
// error until every side says what it does. Pure: the effects are the caller's.

import type { CommandPlan } from "./command.ts"

/** The plan of one kind, as its effect receives it. */
export type PlanOf<K extends CommandPlan["kind"]> = Extract<CommandPlan, { readonly kind: K }>

/** What a place does for each verb kind; each effect gets the plan of its own kind. */
export type PlanEffects<R> = { readonly [K in CommandPlan["kind"]]: (plan: PlanOf<K>) => R }

/** Runs the effect for `plan`'s kind and returns what it returns. */
export function runPlan<R>(plan: CommandPlan, effects: PlanEffects<R>): R {
  switch (plan.kind) {
    case "show":
      return effects.show(plan)
    case "help":
      return effects.help(plan)
    case "copy":
      return effects.copy(plan)
    case "edit":
      return effects.edit(plan)
    case "export":
      return effects.export(plan)
    case "import":
      return effects.import(plan)
    case "ops":
      return effects.ops(plan)
  }
}
