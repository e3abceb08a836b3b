// The part of OpenCode 2's plugin context the binding (v2.ts) uses, typed here from the host's source, and the
// guards that probe it: whether a member is callable, and the messages and model ids in the host's answers
// however it wraps them. Host facts: docs/opencode-2.md, "The binding".

import { isRecord } from "../core/list/result.ts"

export type Fn = (...args: never[]) => unknown
export interface Registration {
  readonly dispose?: () => Promise<void> | void
}
export interface RpcRegistration extends Registration {
  readonly events?: { readonly emit?: (name: string, data: unknown) => Promise<void> | void }
}

/**
 * The part of OpenCode 2's plugin context this binding uses, every member optional: the binding probes each one.
 * Written here from the source (the installed typings are 1.18's partial context).
 */
export interface V2Context {
  readonly options?: Record<string, unknown>
  readonly location?: { readonly directory?: string }
  readonly tool?: { readonly transform?: Fn; readonly hook?: Fn }
  readonly command?: { readonly transform?: Fn }
  readonly skill?: { readonly transform?: Fn }
  readonly session?: {
    readonly hook?: Fn
    readonly synthetic?: Fn
    readonly get?: Fn
    readonly context?: Fn
  }
  readonly event?: { readonly subscribe?: Fn }
  readonly agent?: { readonly list?: Fn }
  readonly rpc?: { readonly register?: Fn }
}

export function fn(value: unknown): value is Fn {
  return typeof value === "function"
}

/** The messages a session.context answer holds, however the host wraps them; undefined when it does not say. */
export function messagesOf(answer: unknown): unknown[] | undefined {
  if (Array.isArray(answer)) return answer
  if (!isRecord(answer)) return undefined
  if (Array.isArray(answer.messages)) return answer.messages
  if (isRecord(answer.data)) return messagesOf(answer.data)
  return Array.isArray(answer.data) ? answer.data : undefined
}

export function modelIds(model: unknown): { modelId: string; providerId: string } {
  const m = isRecord(model) ? model : {}
  const id = m.modelID ?? m.id ?? (isRecord(m.api) ? m.api.id : undefined)
  return {
    modelId: typeof id === "string" ? id : "",
    providerId: typeof m.providerID === "string" ? m.providerID : "",
  }
}
