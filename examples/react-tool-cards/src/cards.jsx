// The tool-call cards of the LangChain docs' "tool calls in the UI" page, for mcpbridge tools:
// one card per `useStream().toolCalls` entry, updated in place, plus what the events plugin
// adds (live MCP progress, task status) and the interrupts answered on the card.
import React, { useState } from "react";
import { SIGN_IN_TYPE, SignInCard } from "./signin.jsx";

const CALCULATOR = new Set(["add", "subtract", "multiply", "divide", "power"]);
const SYMBOL = { add: "+", subtract: "−", multiply: "×", divide: "÷", power: "^" };

export function ToolCard({ call, status, error, mcp, interrupt, onAnswer, signInProblem }) {
  const common = { "data-call-id": call.callId, "data-tool": call.name, "data-status": status, "data-hook-status": call.status };
  if (interrupt?.value?.type === "mcp_approval") {
    return <ApprovalCard {...common} call={call} interrupt={interrupt} onAnswer={onAnswer} />;
  }
  if (interrupt?.value?.type === SIGN_IN_TYPE) {
    return <SignInCard {...common} call={call} interrupt={interrupt} problem={signInProblem} />;
  }
  if (interrupt?.value?.type === "mcp_elicitation") {
    return <ElicitationCard {...common} call={call} interrupt={interrupt} onAnswer={onAnswer} />;
  }
  if (status === "running") return <LoadingCard {...common} call={call} mcp={mcp} />;
  if (status === "error") {
    return (
      <div className="card error" {...common}>
        <Header call={call} mcp={mcp} label="error" />
        <p className="error-text">{error ?? mcp?.error ?? "the tool failed"}</p>
      </div>
    );
  }
  const output = call.output;
  if (output && typeof output === "object" && "city" in output && ("temperature_c" in output || "temperature" in output)) {
    return <WeatherCard {...common} call={call} mcp={mcp} output={output} />;
  }
  if (CALCULATOR.has(call.name) && typeof call.args?.a === "number" && typeof call.args?.b === "number") {
    return (
      <div className="card calculator" {...common}>
        <Header call={call} mcp={mcp} label="done" />
        <p className="sum">
          {call.args.a} {SYMBOL[call.name]} {call.args.b} = <strong>{String(output)}</strong>
        </p>
      </div>
    );
  }
  return (
    <div className="card generic" {...common}>
      <Header call={call} mcp={mcp} label="done" />
      {typeof output === "string" ? (
        <pre className="output">{output}</pre>
      ) : (
        <details className="json">
          <summary>JSON output</summary>
          <pre className="output">{JSON.stringify(output, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}

function Header({ call, mcp, label }) {
  return (
    <div className="card-header">
      <span className="tool-name">{call.name}</span>
      {mcp?.server && <span className="badge">{mcp.server}</span>}
      {mcp?.taskStatus && <span className="badge task" data-task-status={mcp.taskStatus}>task: {mcp.taskStatus}</span>}
      {mcp?.approval && <span className="badge approval">approval: {mcp.approval}</span>}
      <span className="state">{label}</span>
    </div>
  );
}

function LoadingCard({ call, mcp, ...common }) {
  const total = typeof mcp?.total === "number" && mcp.total > 0 ? mcp.total : undefined;
  return (
    <div className="card loading" {...common}>
      <Header call={call} mcp={mcp} label={mcp?.interrupted ? "waiting for you" : "running…"} />
      <pre className="args">{JSON.stringify(call.args)}</pre>
      {total !== undefined && <progress className="bar" value={mcp.progress} max={total} />}
      {mcp?.message && <p className="progress-text">{mcp.message}</p>}
    </div>
  );
}

function WeatherCard({ call, mcp, output, ...common }) {
  return (
    <div className="card weather" {...common}>
      <Header call={call} mcp={mcp} label="done" />
      <p className="city">{output.city}</p>
      <p className="temperature">{output.temperature_c ?? output.temperature} °C</p>
      {output.conditions && <p className="conditions">{output.conditions}</p>}
    </div>
  );
}

function ApprovalCard({ call, interrupt, onAnswer, ...common }) {
  const payload = interrupt.value;
  const allowed = payload.allowed_decisions ?? ["approve", "reject"];
  const [editing, setEditing] = useState(false);
  const [args, setArgs] = useState(JSON.stringify(payload.arguments ?? call.args, null, 2));
  const [reason, setReason] = useState("");
  const answer = (decision) => onAnswer(interrupt, decision);
  return (
    <div className="card approval" {...common} data-status="waiting">
      <Header call={call} label="needs your approval" />
      <p>
        <strong>{payload.display_name ?? payload.name}</strong> on <strong>{payload.server_name}</strong> wants to run with:
      </p>
      {editing ? (
        <textarea className="edit-args" value={args} onChange={(e) => setArgs(e.target.value)} rows={4} />
      ) : (
        <pre className="args">{JSON.stringify(payload.arguments ?? call.args)}</pre>
      )}
      <div className="actions">
        {allowed.includes("approve") && <button className="approve" onClick={() => answer({ type: "approve" })}>Approve</button>}
        {allowed.includes("edit") &&
          (editing ? (
            <button className="save-edit" onClick={() => answer({ type: "edit", edited_action: { name: payload.name, args: JSON.parse(args) } })}>
              Run with these arguments
            </button>
          ) : (
            <button className="edit" onClick={() => setEditing(true)}>Edit</button>
          ))}
        {allowed.includes("reject") && (
          <>
            <input className="reason" placeholder="why not? (optional)" value={reason} onChange={(e) => setReason(e.target.value)} />
            <button className="reject" onClick={() => answer(reason ? { type: "reject", message: reason } : { type: "reject" })}>Reject</button>
          </>
        )}
      </div>
    </div>
  );
}

function ElicitationCard({ call, interrupt, onAnswer, ...common }) {
  const requests = Object.entries(interrupt.value.requests ?? {});
  const [values, setValues] = useState({});
  const set = (key, field, value) => setValues((old) => ({ ...old, [key]: { ...old[key], [field]: value } }));
  const submit = (event) => {
    event.preventDefault();
    const answers = {};
    for (const [key, request] of requests) {
      answers[key] = request.mode === "url" ? { action: "accept" } : { action: "accept", content: contentOf(request.requested_schema, values[key] ?? {}) };
    }
    onAnswer(interrupt, answers);
  };
  const decline = () => onAnswer(interrupt, Object.fromEntries(requests.map(([key]) => [key, { action: "decline" }])));
  return (
    <form className="card elicitation" {...common} data-status="waiting" onSubmit={submit}>
      <Header call={call} label="needs your answer" />
      {requests.map(([key, request]) => (
        <fieldset key={key}>
          <legend>{request.message}</legend>
          {request.mode === "url" ? (
            <a href={request.url} target="_blank" rel="noreferrer">{request.url}</a>
          ) : (
            Object.entries(request.requested_schema?.properties ?? {}).map(([field, schema]) => (
              <Field key={field} name={field} schema={schema} required={(request.requested_schema.required ?? []).includes(field)}
                value={values[key]?.[field]} onChange={(value) => set(key, field, value)} />
            ))
          )}
        </fieldset>
      ))}
      <div className="actions">
        <button type="submit" className="submit">Send</button>
        <button type="button" className="decline" onClick={decline}>Decline</button>
      </div>
    </form>
  );
}

/** One input for one property of an elicitation's (flat) JSON schema. */
function Field({ name, schema, required, value, onChange }) {
  const label = schema.title ?? name;
  if (Array.isArray(schema.enum)) {
    return (
      <label>{label}
        <select name={name} required={required} value={value ?? ""} onChange={(e) => onChange(e.target.value)}>
          <option value="" disabled>choose…</option>
          {schema.enum.map((option) => <option key={option} value={option}>{option}</option>)}
        </select>
      </label>
    );
  }
  if (schema.type === "boolean") {
    return <label><input type="checkbox" name={name} checked={!!value} onChange={(e) => onChange(e.target.checked)} /> {label}</label>;
  }
  const numeric = schema.type === "number" || schema.type === "integer";
  return (
    <label>{label}
      <input name={name} type={numeric ? "number" : schema.format === "date" ? "date" : "text"} required={required}
        placeholder={schema.description ?? ""} value={value ?? ""} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

function contentOf(schema, values) {
  const content = {};
  for (const [field, value] of Object.entries(values)) {
    const type = schema?.properties?.[field]?.type;
    content[field] = type === "number" ? Number(value) : type === "integer" ? parseInt(value, 10) : value;
  }
  return content;
}
