// The page: a chat whose tool calls render as cards, with @langchain/react's useStream against
// LangGraph's server (same origin: the agent's custom app serves this page at /cards/).
import React, { useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { useChannel, useStream } from "@langchain/react";
import { ToolCard } from "./cards.jsx";
import { cardStatus, foldMcpEvents, textOf } from "./mcp-events.js";
import { isListingSignIn, isSignInCallback, ListingSignInCard, SignInReturn, useSignInReturns } from "./signin.jsx";

const EXAMPLES = [
  ["Weather and a sum", 'get_forecast {"city": "Oslo"}\nadd {"a": 2, "b": 3}'],
  ["Divide by zero", 'divide {"a": 1, "b": 0}'],
  ["Fetch a page", 'fetch_page {"url": "https://example.com/offers"}'],
  ["Delete a contact", 'delete_contact {"contact_id": "c1"}'],
  ["Book a table", 'book_table {"party_size": 2}'],
  ["Research (MCP task)", 'research {"topic": "Oslo winters"}'],
  ["Sign in (whoami)", "whoami {}"],
  ["Your own notes (sign-in)", "my_notes {}"],
];

// Who the person is, for the servers that act for them (the auth plugin keeps their tokens per
// user id): sent with every run as `config.configurable.user_id`. A real app takes it from its
// own sign-in on the server side (LangGraph's custom auth), never from the page: see the README.
const USER_ID = new URLSearchParams(window.location.search).get("user") || "demo-user";
const RUN_CONFIG = { configurable: { user_id: USER_ID } };

function App() {
  const stream = useStream({ apiUrl: window.location.origin, assistantId: "agent" });
  const custom = useChannel(stream, ["custom"]);
  const mcp = useMemo(() => foldMcpEvents(custom), [custom]);
  const [text, setText] = useState(EXAMPLES[0][1]);

  const toolMessages = useMemo(() => {
    const byCall = new Map();
    for (const message of stream.messages) if (message.type === "tool") byCall.set(message.tool_call_id, message);
    return byCall;
  }, [stream.messages]);
  const toolCalls = useMemo(() => new Map(stream.toolCalls.map((call) => [call.callId, call])), [stream.toolCalls]);
  const interrupts = useMemo(() => {
    const byCall = new Map();
    for (const interrupt of stream.interrupts) {
      const id = interrupt?.value?.tool_call_id;
      if (id) byCall.set(id, interrupt);
    }
    return byCall;
  }, [stream.interrupts]);

  // the run's own sign-ins (a server that would not list its tools without the person paused the
  // model call): shown after the thread; once the model has answered, the run went on, whatever
  // interrupt the hook may still hold
  const lastMessage = stream.messages[stream.messages.length - 1];
  const listingSignIns = lastMessage?.type === "ai" ? [] : stream.interrupts.filter(isListingSignIn);

  useCardLog(stream.toolCalls, toolMessages, mcp, stream.isLoading);

  const send = (event) => {
    event?.preventDefault();
    stream.submit({ messages: [{ type: "human", content: text }] }, { config: RUN_CONFIG });
  };
  // a resumed run gets only the config it is sent with: the user id goes with every answer
  const answer = (interrupt, response) => stream.respond(response, { interruptId: interrupt.id, config: RUN_CONFIG });
  const signInProblems = useSignInReturns(stream.interrupts, answer, stream.isLoading);

  return (
    <main data-loading={String(stream.isLoading)}>
      <h1>mcpbridge tool cards</h1>
      <p className="whoami">You are <strong>{USER_ID}</strong> (<code>?user=</code> in the address changes it).</p>
      <form className="composer" onSubmit={send}>
        <div className="examples">
          {EXAMPLES.map(([label, prompt]) => (
            <button type="button" key={label} onClick={() => setText(prompt)}>{label}</button>
          ))}
        </div>
        <textarea id="prompt" value={text} rows={3} onChange={(e) => setText(e.target.value)} />
        <button id="send" type="submit" disabled={stream.isLoading}>Send</button>
      </form>
      {stream.error != null && <p className="run-error">{String(stream.error?.message ?? stream.error)}</p>}
      <section className="thread">
        {stream.messages.map((message, index) => {
          if (message.type === "tool") return null; // shown on its card
          const asked = message.tool_calls ?? [];
          return (
            <div key={message.id ?? index} className={`message ${message.type}`}>
              {textOf(message.content) && <p className="text">{textOf(message.content)}</p>}
              {asked.map((asked) => {
                const call = toolCalls.get(asked.id) ?? { callId: asked.id, name: asked.name, args: asked.args, status: "running" };
                const { status, error } = cardStatus(call, toolMessages.get(asked.id), mcp.get(asked.id));
                // a call with its answer waits no more, whatever interrupt the hook still holds for it
                const interrupt = toolMessages.has(asked.id) ? undefined : interrupts.get(asked.id);
                return (
                  <ToolCard key={asked.id} call={call} status={status} error={error} mcp={mcp.get(asked.id)}
                    interrupt={interrupt} onAnswer={answer} signInProblem={signInProblems[interrupt?.value?.state]} />
                );
              })}
            </div>
          );
        })}
        {listingSignIns.length > 0 && (
          <div className="message run">
            {listingSignIns.map((interrupt) => (
              <ListingSignInCard key={interrupt.id ?? interrupt.value.state} interrupt={interrupt}
                problem={signInProblems[interrupt.value.state]} />
            ))}
          </div>
        )}
      </section>
    </main>
  );
}

/** Each card's history for tests and debugging (`window.__cards`): every status it showed,
 * what the hook said, and the most calls running at once. */
function useCardLog(hookCalls, toolMessages, mcp, isLoading) {
  useEffect(() => {
    const log = (window.__cards ??= { history: {}, maxRunning: 0 });
    let running = 0;
    for (const call of hookCalls) {
      const { status } = cardStatus(call, toolMessages.get(call.callId), mcp.get(call.callId));
      if (status === "running") running += 1;
      const seen = (log.history[call.callId] ??= []);
      const entry = `${status}|hook:${call.status}|${mcp.get(call.callId)?.message ?? ""}`;
      if (seen[seen.length - 1] !== entry) seen.push(entry);
    }
    log.maxRunning = Math.max(log.maxRunning, running);
    log.loading = isLoading;
  }, [hookCalls, toolMessages, mcp, isLoading]);
}

createRoot(document.getElementById("root")).render(isSignInCallback() ? <SignInReturn /> : <App />);
