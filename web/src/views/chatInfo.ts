/** Which components a chatting robot's agent uses (`GET /api/robots/{robot}/chat`): the trace explorer reads its
 * conversations component, the request view and the playground its LLM component, the draft its prompt. */
import { useQuery } from "@tanstack/react-query";

import { send as apiFetch } from "../api/client";
import { toText } from "../components/format";

export interface ChatComponents {
  llm: string;
  conversations: string;
  prompt?: string;
}

/** `enabled` false: not asked yet (the chat asks only once a dry run has a request to open). */
export function useChatComponents(robot: string, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["chat-info", robot],
    queryFn: async (): Promise<ChatComponents> => {
      const res = await apiFetch(`/api/robots/${encodeURIComponent(robot)}/chat`);
      if (!res.ok) throw new Error(`robot ${robot} has no conversations to explore (HTTP ${res.status})`);
      const body = (await res.json()) as Record<string, unknown>;
      const out: ChatComponents = { llm: toText(body.llm), conversations: toText(body.conversations) };
      if (typeof body.prompt === "string" && body.prompt) out.prompt = body.prompt;
      return out;
    },
    staleTime: Infinity,
  });
}
