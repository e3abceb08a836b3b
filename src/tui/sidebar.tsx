// The sidebar block: the core's painted lines (src/core/view/sidebar.ts sidebarModel) for the session,
// coloured from the host's theme. Its mounts tell the compact line whether the sidebar is on screen.

import { createEffect, createMemo, For, on, onCleanup, onMount, Show } from "solid-js"
import { SIDEBAR_WIDTH, type SidebarLine, sidebarModel } from "../core/view/sidebar.ts"
import type { TuiHost } from "./host.ts"
import type { ListSource } from "./list-source.ts"

export function SidebarBlock(props: {
  host: TuiHost
  source: ListSource
  rows: number
  sessionID: string
  onShown: (delta: 1 | -1) => void
}) {
  onMount(() => props.onShown(1))
  onCleanup(() => props.onShown(-1))
  createEffect(
    on(
      () => props.sessionID,
      (session) => session && props.source.refresh(session),
    ),
  )
  const lines = createMemo(() => {
    try {
      if (!props.sessionID) return undefined
      const list = props.source.list(props.sessionID)()
      return sidebarModel(list, { maxRows: props.rows, width: SIDEBAR_WIDTH })
    } catch {
      return undefined
    }
  })
  return (
    <Show when={lines()}>
      {(shown: () => SidebarLine[]) => (
        <box>
          <For each={shown()}>
            {(line) => (
              <text wrapMode="none">
                <For each={line.segments}>
                  {(segment) => (
                    <span style={{ fg: props.host.color(segment.tone), bold: segment.tone === "title" }}>
                      {segment.text}
                    </span>
                  )}
                </For>
              </text>
            )}
          </For>
        </box>
      )}
    </Show>
  )
}
