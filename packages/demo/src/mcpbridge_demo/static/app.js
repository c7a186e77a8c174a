// mcpbridge inspector: one card per tool call, live over Server-Sent Events.
// Every value from a tool goes through textContent, never parsed as HTML: output is untrusted.
// The server sends deltas: `call` carries a call's fields (and, in a snapshot, the updates it
// keeps), `update` one new update; each costs the page the same however long the call runs.
"use strict";

const CALC = { add: "+", subtract: "−", sub: "−", multiply: "×", mul: "×", divide: "÷", div: "÷", power: "^", pow: "^" };
const cards = new Map();
const calls = new Map();
const updateLists = new Map(); // call id → the updates list of its card

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function show(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function kindOf(call) {
  if (call.status === "running") return "loading";
  if (call.status === "error") return "error";
  const out = call.output;
  if (isObject(out) && "city" in out && ("temperature_c" in out || "temperature" in out)) return "weather";
  const op = CALC[call.mcpName] || CALC[call.name];
  const args = call.args || {};
  if (op && typeof args.a === "number" && typeof args.b === "number") return "calculator";
  return typeof out === "string" ? "text" : "json";
}

function header(call) {
  const head = el("div", "head");
  const icon = el("span", "icon " + (call.status === "running" ? "spinner" : call.status),
    call.status === "finished" ? "✓" : call.status === "error" ? "!" : "");
  head.append(icon, el("span", "name", call.name || call.mcpName || "tool"));
  const badges = el("span", "badges");
  if (call.serverName) badges.append(el("span", "badge", call.serverName));
  if (call.cached) badges.append(el("span", "badge warn", "cache hit"));
  if (call.attempts && call.attempts > 1) badges.append(el("span", "badge warn", call.attempts + " attempts"));
  if (call.approval) badges.append(el("span", "badge warn", call.approval));
  if (call.taskStatus) badges.append(el("span", "badge", "task " + call.taskStatus));
  if (call.interrupted && call.status === "running") badges.append(el("span", "badge warn", "waiting for input"));
  badges.append(el("span", "badge status-" + call.status, call.status));
  head.append(badges);
  return head;
}

function argsLine(call) {
  const line = el("div", "args");
  const entries = Object.entries(call.args || {});
  if (!entries.length) line.append("no arguments");
  entries.forEach(([key, value], i) => {
    if (i) line.append(", ");
    line.append(el("b", null, key), "=" + show(value));
  });
  return line;
}

function facts(pairs) {
  const list = el("dl", "facts");
  for (const [key, value] of pairs) list.append(el("dt", null, key), el("dd", null, show(value)));
  return list;
}

function progressBar(progress) {
  const box = el("div");
  const bar = el("div", "progress");
  const fill = el("div");
  const share = progress.total ? Math.min(1, progress.progress / progress.total) : null;
  fill.style.width = share === null ? "30%" : Math.round(share * 100) + "%";
  bar.append(fill);
  box.append(bar);
  const label = [progress.message, share === null ? progress.progress : Math.round(share * 100) + "%"]
    .filter((part) => part !== null && part !== undefined && part !== "").join(" · ");
  box.append(el("div", "progress-text", label));
  return box;
}

function weatherBody(out) {
  const body = el("div", "body");
  const top = el("div", "weather");
  const temp = "temperature_c" in out ? out.temperature_c + " °C" : show(out.temperature);
  top.append(el("span", "temp", temp), el("span", "city", out.city));
  body.append(top);
  const rest = Object.entries(out).filter(([key]) => !["city", "temperature_c", "temperature"].includes(key));
  if (rest.length) body.append(facts(rest));
  return body;
}

function calculatorBody(call) {
  const body = el("div", "body calc");
  const out = call.output;
  const result = isObject(out) && "result" in out ? out.result : out;
  const op = CALC[call.mcpName] || CALC[call.name];
  body.append(call.args.a + " " + op + " " + call.args.b + " = ", el("span", "result", show(result)));
  return body;
}

function collapsible(summary, text, open) {
  const details = el("details");
  details.open = open;
  details.append(el("summary", null, summary), el("pre", null, text));
  return details;
}

function fallbackBody(call) {
  const body = el("div", "body");
  const out = call.output;
  if (typeof out === "string") {
    if (out.length > 240) body.append(collapsible("text · " + out.length + " characters", out, false));
    else body.append(el("pre", null, out));
  } else {
    const size = Array.isArray(out) ? out.length + " items" : isObject(out) ? Object.keys(out).length + " keys" : "value";
    body.append(collapsible("JSON · " + size, JSON.stringify(out, null, 2), false));
  }
  return body;
}

function describe(update) {
  const { update: kind, ...rest } = update;
  if (kind === "log") return (rest.level || "log") + (rest.logger ? " [" + rest.logger + "]" : "") + " " + show(rest.data);
  return kind + (Object.keys(rest).length ? " " + JSON.stringify(rest) : "");
}

function updatesOf(callId) {
  let kept = updateLists.get(callId);
  if (!kept) {
    kept = { node: el("details", "updates"), summary: el("summary"), list: el("ol"), dropped: 0 };
    kept.node.append(kept.summary, kept.list);
    kept.node.hidden = true;
    updateLists.set(callId, kept);
  }
  return kept;
}

function label(kept) {
  const count = kept.list.childElementCount;
  const earlier = kept.dropped ? " · " + kept.dropped.toLocaleString("en-US") + " earlier not kept" : "";
  kept.summary.textContent = count + (count === 1 ? " update" : " updates") + earlier;
  kept.list.start = kept.dropped + 1; // numbered as the call's updates, not the list's
  kept.node.hidden = count === 0 && kept.dropped === 0;
}

// One delta: the update numbered `index` of its call; the first `dropped` ones are no longer kept.
function addUpdate(delta) {
  const kept = updatesOf(delta.callId);
  kept.list.append(el("li", null, describe(delta.update)));
  kept.dropped = delta.dropped;
  while (kept.list.childElementCount > delta.index + 1 - delta.dropped) kept.list.firstElementChild.remove();
  label(kept);
}

// A snapshot of a call (a page that connects late, or fell behind): its kept updates replace the list.
function resetUpdates(callId, updates, dropped) {
  const kept = updatesOf(callId);
  kept.list.replaceChildren(...updates.map((update) => el("li", null, describe(update))));
  kept.dropped = dropped || 0;
  label(kept);
}

function receive(data) {
  const { updates, updatesDropped, ...call } = data;
  if (Array.isArray(updates)) resetUpdates(call.callId, updates, updatesDropped);
  render(call);
}

function render(call) {
  calls.set(call.callId, call);
  let card = cards.get(call.callId);
  if (!card) {
    card = el("article", "card");
    card.dataset.callId = call.callId;
    cards.set(call.callId, card);
    document.getElementById("cards").append(card);
    document.getElementById("empty").hidden = true;
  }
  const kind = kindOf(call);
  card.dataset.status = call.status;
  card.dataset.kind = kind;
  const parts = [header(call), argsLine(call)];
  if (kind === "loading") {
    if (call.progress) parts.push(progressBar(call.progress));
  } else if (kind === "error") {
    const body = el("div", "body");
    body.append(el("pre", "error-text", call.error || "failed"));
    parts.push(body);
  } else if (kind === "weather") {
    parts.push(weatherBody(call.output));
  } else if (kind === "calculator") {
    parts.push(calculatorBody(call));
  } else {
    parts.push(fallbackBody(call));
  }
  parts.push(updatesOf(call.callId).node);
  card.replaceChildren(...parts);
  count();
}

function count() {
  const tally = { running: 0, finished: 0, error: 0 };
  for (const call of calls.values()) tally[call.status] = (tally[call.status] || 0) + 1;
  document.getElementById("counts").textContent =
    tally.running + " running · " + tally.finished + " finished · " + tally.error + " failed";
}

function connect() {
  const live = document.getElementById("live");
  const source = new EventSource("events");
  source.addEventListener("hello", (event) => {
    const info = JSON.parse(event.data);
    document.title = info.title;
    document.querySelector(".bar h1").textContent = info.title;
    document.getElementById("run").hidden = !info.canRun;
  });
  source.addEventListener("call", (event) => receive(JSON.parse(event.data)));
  source.addEventListener("update", (event) => addUpdate(JSON.parse(event.data)));
  source.onopen = () => { live.dataset.state = "live"; live.textContent = "live"; };
  source.onerror = () => { live.dataset.state = "down"; live.textContent = "reconnecting…"; };
}

document.getElementById("run").addEventListener("click", () => {
  fetch("run", { method: "POST", headers: { "X-Inspector": "1" } });
});
connect();
