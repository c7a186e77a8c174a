// What the events plugin tells the page about each MCP call, folded from the `custom`
// channel (one card's extra state per tool call id): progress, task status, approval step,
// the latest updates, and the plugin's own verdict ("finished" / "error").

export const EVENT_TYPE = "mcpbridge.tool_call";
const MAX_UPDATES = 20;

/** The plugin's event carried by one `custom` channel event, or undefined. */
function eventOf(protocolEvent) {
  const data = protocolEvent?.params?.data;
  const event = data && typeof data === "object" && "payload" in data && data.type !== EVENT_TYPE ? data.payload : data;
  return event?.type === EVENT_TYPE ? event : undefined;
}

/** callId -> { status, progress, total, message, taskStatus, approval, interrupted, error, updates } */
export function foldMcpEvents(protocolEvents) {
  const calls = new Map();
  for (const protocolEvent of protocolEvents) {
    const event = eventOf(protocolEvent);
    if (event === undefined) continue;
    const id = event.tool_call_id;
    const call = calls.get(id) ?? { status: "running", updates: [] };
    calls.set(id, call);
    switch (event.event) {
      case "started":
        Object.assign(call, { status: "running", interrupted: false, server: event.server_name, error: undefined });
        break;
      case "progress":
        Object.assign(call, { progress: event.progress, total: event.total, message: event.message });
        break;
      case "update":
        call.updates = [...call.updates.slice(-(MAX_UPDATES - 1)), { update: event.update, ...event.data }];
        if (event.update === "task.status") call.taskStatus = event.data?.status;
        if (event.update?.startsWith("approval.")) call.approval = event.data?.decision ?? event.update.slice(9);
        break;
      case "interrupted":
        call.interrupted = true;
        break;
      case "finished":
        Object.assign(call, { status: "finished", interrupted: false });
        break;
      case "error":
        Object.assign(call, { status: "error", interrupted: false, error: event.error });
        break;
    }
  }
  return calls;
}

/**
 * The card's status and error. `useStream().toolCalls` turns a failed call's "error" back into
 * "finished" once its ToolMessage arrives (LangGraph JS `reconcileToolCallsFromMessages` in
 * libs/sdk/src/stream/tool-calls.ts ignores the message's `status`). So a card is an error card
 * when the hook says so, when the events plugin said so (its `error` event, `mcp`), or when the
 * call's ToolMessage in `stream.messages` has `status: "error"` (the workaround without the plugin).
 */
export function cardStatus(toolCall, toolMessage, mcp) {
  if (toolMessage?.status === "error") return { status: "error", error: textOf(toolMessage.content) };
  if (mcp?.status === "error") return { status: "error", error: mcp.error };
  if (toolCall.status === "error") return { status: "error", error: toolCall.error };
  return { status: toolCall.status, error: undefined };
}

export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((block) => (typeof block === "string" ? block : block?.text ?? "")).join("");
  return JSON.stringify(content);
}
