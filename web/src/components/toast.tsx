/**
 * The notice after a change: every mutation the console makes says so in a toast (the form that
 * made it closes, so without one a user cannot tell that it worked). One helper, used by every view.
 */
import { notifications } from "@mantine/notifications";

import type { ActionInfo } from "../api/client";
import { actionTitle } from "./context";

const DONE: Record<string, string> = {
  create: "Created.",
  update: "Saved.",
  config: "Saved: in effect now and at every start.",
  delete: "Deleted.",
};

/** Say that `action` succeeded (its title, and what happened in words). */
export function notifyDone(action: ActionInfo, detail?: string): void {
  const op = action.alias?.resourceOpType ?? "";
  notifications.show({
    color: "green",
    title: actionTitle(action),
    message: detail ?? DONE[op] ?? "Done.",
    "data-testid": "toast",
  } as Parameters<typeof notifications.show>[0]);
}
