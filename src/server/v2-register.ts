// How the OpenCode 2 binding registers with its host: each registration kept for the cleanup, a capability the
// host lacks or refuses said once and the rest going on, registry callbacks that never throw into the host, and
// the RPC events to the TUI sent through the RPC registration once it exists.

import { isRecord } from "../core/list/result.ts"
import type { Log } from "./output.ts"
import { fn, type Registration, type RpcRegistration } from "./v2-context.ts"
import type { EmitRpc } from "./v2-registry.ts"

export interface Registrar {
  /** Says once that the host lacks `what`, and what the plugin does without it. */
  lacks(what: string, effect: string): void
  /** Registers what `make` registers; a refusal is said as a lack, with `effect`. */
  register(what: string, effect: string, make: () => unknown): Promise<void>
  /**
   * A session hook only some versions have. The hosts read keep a name they lack and never call it
   * (packages/core/src/plugin/hooks.ts@0f2daeba); one that refused it is said once, as information.
   */
  registerOptional(name: string, make: () => unknown): Promise<boolean>
  /**
   * A registry callback. The host replays it on every rebuild and disables the whole plugin when one throws
   * (2.0.15: "disabled plugin after transform failure"), so a refusal of what we add costs only that registry.
   */
  editing<E>(what: string, effect: string, body: (editor: E) => void): (editor: E) => void
  /** The RPC registration, once made: the events to the TUI go through it. */
  rpcRegistered(rpc: RpcRegistration): void
  readonly emit: EmitRpc
  /** Unloading: every registration disposed, whatever each does. */
  dispose(): Promise<void>
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

export function registrar(log: Log): Registrar {
  const registrations: Registration[] = []
  let rpc: RpcRegistration | undefined
  const lacks = (what: string, effect: string) => log("warn", `OpenCode 2 host without ${what}: ${effect}`)
  const keep = (registration: unknown) => {
    if (isRecord(registration)) registrations.push(registration as Registration)
  }

  const emit: EmitRpc = (name, data) => {
    const send = rpc?.events?.emit
    if (!fn(send)) {
      lacks("plugin RPC", `the ${name} events for the TUI are not sent`)
      return
    }
    try {
      Promise.resolve(send(name as never, data as never)).catch((error: unknown) =>
        log("warn", `RPC event ${name} failed: ${message(error)}`),
      )
    } catch (error) {
      log("warn", `RPC event ${name} failed: ${message(error)}`)
    }
  }

  return {
    lacks,
    emit,
    async register(what, effect, make) {
      try {
        keep(await make())
      } catch (error) {
        lacks(what, `${effect} (${message(error)})`)
      }
    },
    async registerOptional(name, make) {
      try {
        keep(await make())
        return true
      } catch (error) {
        log("info", `this host has no \`${name}\` session hook (${message(error)})`)
        return false
      }
    },
    editing:
      <E>(what: string, effect: string, body: (editor: E) => void) =>
      (editor: E): void => {
        try {
          body(editor)
        } catch (error) {
          log("warn", `the host's ${what} refused the plugin's entry: ${effect} (${message(error)})`)
        }
      },
    rpcRegistered(made) {
      rpc = made
    },
    async dispose() {
      for (const registration of registrations.splice(0))
        try {
          await registration.dispose?.()
        } catch {
          // Unloading: nothing to report to.
        }
    },
  }
}
