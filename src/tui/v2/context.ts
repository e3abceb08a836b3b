// The part of OpenCode 2's TUI plugin context this plugin uses, typed here (the host's own types ship only
// inside its TUI). Read from the host's source, not run; the files and commits each member comes from are
// listed in docs/design.md. Every member is optional here: the binding checks before it calls.

export interface V2DialogSelectOption<Value> {
  readonly title: string
  readonly value: Value
  readonly description?: string
  readonly category?: string
}

export interface V2Dialog {
  clear(): void
  alert(options: { readonly title: string; readonly message: string }): Promise<void>
  confirm(options: { readonly title: string; readonly message: string }): Promise<boolean | undefined>
  prompt(options: {
    readonly title: string
    readonly placeholder?: string
    readonly value?: string
  }): Promise<string | undefined>
  select<Value>(options: {
    readonly title: string
    readonly placeholder?: string
    readonly options: readonly V2DialogSelectOption<Value>[]
    readonly current?: Value
  }): Promise<Value | undefined>
}

export type V2Route = { readonly type: string; readonly sessionID?: string }

/** One slot claim; only the placements this plugin uses. */
export type V2SlotClaim =
  | {
      readonly append: "sidebar.content"
      readonly render: (input: { readonly sessionID: string }) => unknown
    }
  | {
      readonly append: "session.composer.top"
      readonly render: (input: { readonly sessionID: string }) => unknown
    }
  | { readonly append: "app"; readonly render: (input: Record<string, never>) => unknown }

export interface V2KeymapCommand {
  readonly id: string
  readonly title?: string
  readonly description?: string
  readonly group?: string
  readonly palette?: true
  readonly slash?: { readonly name: string; readonly arguments?: true }
  readonly run: (input?: string) => void | false | Promise<void>
}

export interface V2KeymapLayer {
  readonly mode?: string
  readonly commands?: readonly V2KeymapCommand[]
}

/** What `context.client.rpc(definition)` gives for our definition (src/shared/v2-rpc.ts). */
export interface V2RpcClient {
  list?(input: { readonly sessionID: string }): Promise<unknown>
  run?(input: { readonly sessionID: string; readonly text: string }): Promise<unknown>
  readonly events?: { on?(name: string, handler: (event: unknown) => void): (() => void) | undefined }
}

export interface V2Storage {
  store?<Value extends object>(
    key: string,
    options: { readonly initial: Value },
  ): readonly [Value, (mutation: (draft: Value) => void) => Promise<void>]
}

export interface V2Context {
  readonly options?: Readonly<Record<string, unknown>>
  readonly storage?: V2Storage
  readonly location?: { readonly directory?: string }
  readonly renderer?: unknown
  readonly theme?: unknown
  readonly client?: { rpc?(definition: unknown): V2RpcClient | undefined }
  readonly data?: {
    on?(type: string, handler: (event: unknown) => void): (() => void) | undefined
    readonly session?: {
      get?(sessionID: string): unknown
      readonly message?: {
        list?(sessionID: string): readonly { readonly id?: string }[] | undefined
        sync?(sessionID: string): Promise<void>
      }
    }
    readonly location?: { default?(): { readonly directory?: string } | undefined }
  }
  readonly keymap?: { layer?(input: () => V2KeymapLayer): void }
  readonly ui?: {
    readonly dialog?: V2Dialog
    readonly toast?: {
      show?(options: {
        readonly title?: string
        readonly message: string
        readonly variant?: string
        readonly duration?: number
        readonly sessionID?: string
      }): void
    }
    readonly router?: { current?(): V2Route | undefined }
    slot?(claim: V2SlotClaim): (() => void) | undefined
  }
}
