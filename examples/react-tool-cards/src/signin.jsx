// Sign-in as a pause: an MCP server that acts for the person refused the call (401, or 403
// insufficient_scope), and the auth plugin paused it with an `mcp_sign_in` interrupt; or it
// refused to list its tools for the run without the person, and the auth plugin paused the model
// call the same way, with no tool call (`tool_call_id` null: a card of the run). The card
// shows which server asks, why and for what scopes, and links to its authorization page in a
// new tab. The authorization server sends that tab back to the app's callback
// (`/cards/signed-in?code=...&state=...`, this same bundle), which hands the code to the
// waiting page over a BroadcastChannel; the page resumes the interrupt with `{ code, state }`.
import React, { useEffect, useRef, useState } from "react";

export const SIGN_IN_TYPE = "mcp_sign_in";
const CHANNEL = "mcpbridge-sign-in";
const RETURNED = "returned"; // callback tab -> waiting page: { kind, state, code | error }
const RECEIVED = "received"; // waiting page -> callback tab: { kind, state }

/** The text as a link target when it is an absolute http(s) URL; undefined otherwise, so a
 * `javascript:` or `data:` URL from the interrupt never becomes a link. */
export function httpUrl(text) {
  try {
    const url = new URL(String(text));
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** True when this document is the sign-in callback rather than the chat. */
export function isSignInCallback(location = window.location) {
  return location.pathname.replace(/\/+$/, "").endsWith("/signed-in");
}

/** A tool call's sign-in: the card in place of the call's, until the call goes on. */
export function SignInCard({ call, interrupt, problem, ...common }) {
  return <SignInPrompt {...common} title={call.name} payload={interrupt.value} problem={problem} />;
}

/** A sign-in that belongs to no tool call (`tool_call_id` null): the server would not list its
 * tools for this run without the person, so the run paused before the model was called. The
 * card stands for the run, not for a call; the run goes on (and the model is called, with the
 * tools the server lists to the person) once they have signed in. */
export function ListingSignInCard({ interrupt, problem }) {
  const payload = interrupt.value;
  const server = String(payload.server_name ?? "the server");
  return (
    <SignInPrompt data-listing={server} data-interrupt-id={interrupt.id} title={`tools of ${server}`} payload={payload} problem={problem}>
      <p className="listing">The agent waits for the tools {server} lists to you: it goes on once you have signed in.</p>
    </SignInPrompt>
  );
}

/** True for a sign-in interrupt of the run itself (a listing's) rather than of a tool call. */
export function isListingSignIn(interrupt) {
  return interrupt?.value?.type === SIGN_IN_TYPE && interrupt.value.tool_call_id == null;
}

/** The sign-in card both kinds share: the server, its reason, the scopes asked, and a link to
 * the authorization page (only an http(s) URL) in a new tab. Every server-given text is text. */
function SignInPrompt({ title, payload, problem, children, ...attributes }) {
  const url = httpUrl(payload.authorization_url);
  const server = String(payload.server_name ?? "the server");
  const scopes = Array.isArray(payload.scopes) ? payload.scopes.map(String) : [];
  const [opened, setOpened] = useState(false);
  return (
    <div className="card sign-in" {...attributes} data-status="waiting">
      <div className="card-header">
        <span className="tool-name">{title}</span>
        <span className="badge">{server}</span>
        <span className="state">needs you to sign in</span>
      </div>
      <p className="reason">{String(payload.reason ?? `server '${server}' needs you to sign in`)}</p>
      {children}
      <p className="scopes">
        {scopes.length ? "Access asked: " : "No particular access asked."}
        {scopes.map((scope, i) => (
          <React.Fragment key={scope}>{i ? ", " : ""}<code className="scope">{scope}</code></React.Fragment>
        ))}
      </p>
      {url ? (
        <>
          <p className="where">You sign in at <strong>{url.host}</strong>, in a new tab.</p>
          <a className="sign-in-link" href={url.href} target="_blank" rel="noopener noreferrer" onClick={() => setOpened(true)}>
            Sign in to {server}
          </a>
        </>
      ) : (
        <p className="error-text">The sign-in address is not an http(s) URL, so the card does not link to it.</p>
      )}
      {opened && !problem && <p className="hint">Finish signing in in the new tab: this card goes on by itself when you are back.</p>}
      {problem && <p className="error-text sign-in-problem">Sign-in did not finish: {problem}. You can try again.</p>}
    </div>
  );
}

/**
 * Listens for the callback tab and resumes the sign-in interrupts of the returned `state` with
 * `{ code, state }`. Only a same-origin document can post on a BroadcastChannel, and only a
 * `state` of one of this page's own pending sign-ins is taken (a code sent for any other state is
 * ignored), so another site cannot slip its own code into the run. Calls of one person waiting
 * at once share one sign-in (one `state`): each of its interrupts is answered with the same
 * value, one run at a time, as the run comes back with the next one still pending (the plugin
 * then sends it with the token the first answer stored). Returns the problems by state (the
 * authorization server sent `error=...` instead of a code: the card stays for another try).
 */
export function useSignInReturns(interrupts, onAnswer, busy) {
  const signIns = interrupts.filter((i) => i?.value?.type === SIGN_IN_TYPE && typeof i.value.state === "string");
  const pending = useRef(signIns);
  pending.current = signIns;
  const returned = useRef(new Map()); // state -> { code, state }
  const answered = useRef(new Set()); // interrupt ids
  const [problems, setProblems] = useState({});
  const answer = useRef(onAnswer);
  answer.current = onAnswer;

  const replying = useRef(false); // one resume at a time: the next waits for this run to end
  const [, ended] = useState(0); // a render once a resume ends, to answer the next
  const reply = (interrupt, value) => {
    answered.current.add(interrupt.id);
    replying.current = true;
    Promise.resolve(answer.current(interrupt, value))
      .catch((error) => {
        answered.current.delete(interrupt.id);
        returned.current.delete(value.state);
        setProblems((old) => ({ ...old, [value.state]: String(error?.message ?? error) }));
      })
      .finally(() => {
        replying.current = false;
        ended((count) => count + 1);
      });
  };
  const next = () => pending.current.find((i) => returned.current.has(i.value.state) && !answered.current.has(i.id));

  useEffect(() => {
    const waiting = busy || replying.current ? undefined : next();
    if (waiting !== undefined) reply(waiting, returned.current.get(waiting.value.state));
  });

  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return undefined;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = ({ data }) => {
      if (data?.kind !== RETURNED || typeof data.state !== "string") return;
      const matched = pending.current.some((i) => i.value.state === data.state) && !returned.current.has(data.state);
      ((window.__cards ??= { history: {}, maxRunning: 0 }).signInReturns ??= []).push({ matched }); // for tests
      if (!matched) return;
      channel.postMessage({ kind: RECEIVED, state: data.state });
      if (typeof data.code === "string" && data.code) {
        returned.current.set(data.state, { code: data.code, state: data.state });
        setProblems(({ [data.state]: _, ...rest }) => rest);
        reply(next(), returned.current.get(data.state));
      } else {
        setProblems((old) => ({ ...old, [data.state]: String(data.error || "no code came back") }));
      }
    };
    return () => channel.close();
  }, []);
  return problems;
}

/** The callback page: hands the code to the waiting chat tab, drops it from the address bar,
 * and closes itself once the chat has it (browsers allow that for a tab with one page). */
export function SignInReturn() {
  const [sent] = useState(() => {
    const query = new URLSearchParams(window.location.search);
    return { kind: RETURNED, state: query.get("state") ?? "", code: query.get("code") ?? "", error: query.get("error") ?? "" };
  });
  const [received, setReceived] = useState(false);
  useEffect(() => {
    window.history.replaceState(null, "", window.location.pathname); // the code leaves history
    if (typeof BroadcastChannel === "undefined") return undefined;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = ({ data }) => {
      if (data?.kind !== RECEIVED || data.state !== sent.state) return;
      setReceived(true);
      window.close();
    };
    channel.postMessage(sent);
    return () => channel.close();
  }, [sent]);
  const failed = !sent.code;
  return (
    <main className="sign-in-return" data-received={String(received)}>
      <h1>{failed ? "Sign-in did not finish" : "Signed in"}</h1>
      {failed && <p className="error-text">{sent.error || "the authorization server sent no code"}</p>}
      <p>
        {received
          ? "The chat has it: you can close this tab."
          : "Go back to the chat's tab (it must still be open): its card goes on from there."}
      </p>
      <a href="./">Back to the chat</a>
    </main>
  );
}
