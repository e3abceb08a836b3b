// Where a session no server has met yet starts, as the 1.18 TUI works it out: the server's own origin lookup
// (shared/origin.ts) over this TUI's client. Kept apart from the TUI's Solid modules, so the real-host smoke
// runs this very code over a v2 SDK client of its own.

import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import type { Limits } from "../../core/list/types.ts"
import { type OriginClient, originFinder, sourceAtFork } from "../../shared/origin.ts"
import type { StartOf } from "../../shared/user-edits.ts"
import type { Store } from "../../store/store.ts"

/**
 * The three session questions the server's origin lookup (shared/origin.ts) asks, in the shape it asks them,
 * over this TUI's client (the host's v2 SDK, which takes the session id and the query flat).
 */
export function originClient(api: Pick<TuiPluginApi, "client">): OriginClient {
  const session = api.client.session
  return {
    session: {
      messages: (o: { path: { id: string } }) => session.messages({ sessionID: o.path.id }),
      get: (o: { path: { id: string } }) => session.get({ sessionID: o.path.id }),
      list: (o: { query?: { search?: string; roots?: boolean; limit?: number } }) =>
        session.list({ ...o.query }),
    },
  }
}

/**
 * Where a session no server has met yet starts: the server's own lookup over this TUI's client, so a fork edited
 * in the dialog before any server met it starts where the server would start it. Its log lines are the
 * server's to write; the TUI's terminal is not a log. The real-host smoke runs this over a v2 SDK client.
 */
export function forkStart(api: Pick<TuiPluginApi, "client">, store: Store, limits: Limits): StartOf {
  return originFinder({ client: originClient(api), store, limits, log: () => {}, sourceAt: sourceAtFork })
}
