// Drive an AG-UI server with the official client (@ag-ui/client HttpAgent), as a frontend would.
//
// stdin: a scenario as JSON
//   {url, threadId, headers?, forwardedProps?, frontendTools?: [{name, description, parameters,
//    result}], steps: [{say: "text"} | {resume: {status, payload?}} | {click: {name, context?}}]}
// Each step is one run (a user message, an answer to every pending interrupt, or a button press:
// the A2UI action a renderer reports, sent as forwardedProps.a2uiAction, or as the resume payload
// of the interrupts that list it in metadata.answeredBy; the client refuses a run while an
// interrupt is pending unless it resumes it). When a run ends
// with frontend tool calls pending, the canned `result` of each tool is added as a tool message
// and the agent runs again (as CopilotKit does after a frontend tool's handler returns).
//
// stdout: {runs: [{events, outcome, pendingToolCallIds, interrupts}], messages, state}
// Exit 1 with one line on stderr when the client rejects a run, warns about anything, or a stream
// ends without RUN_FINISHED or RUN_ERROR (which the client itself accepts silently).
import { readFileSync } from "node:fs";
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...args) => warnings.push(`console.${level}: ${args.map(String).join(" ")}`);
}
process.on("warning", (warning) => warnings.push(`process warning: ${warning.message}`));

const MAX_TOOL_ROUNDS = 4;

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const scenario = JSON.parse(readFileSync(0, "utf8"));
const tools = (scenario.frontendTools ?? []).map(({ name, description, parameters }) => ({
  name,
  description,
  parameters,
}));
const results = Object.fromEntries((scenario.frontendTools ?? []).map((t) => [t.name, t.result]));
const agent = new HttpAgent({
  url: scenario.url,
  threadId: scenario.threadId,
  headers: scenario.headers ?? {},
});
const runs = [];

async function run(options) {
  const record = { events: [], outcome: null, pendingToolCallIds: [], interrupts: [] };
  runs.push(record);
  const subscriber = {
    onEvent: ({ event }) => {
      record.events.push(event);
    },
    onRunFinishedEvent: ({ outcome, pendingToolCallIds, interrupts }) => {
      record.outcome = outcome;
      record.pendingToolCallIds = pendingToolCallIds ?? [];
      record.interrupts = interrupts ?? [];
    },
    onRunErrorEvent: () => {
      record.outcome = "error";
    },
  };
  try {
    const { forwardedProps: extra, ...rest } = options;
    const forwardedProps = { ...(scenario.forwardedProps ?? {}), ...(extra ?? {}) };
    await agent.runAgent({ tools, forwardedProps, ...rest }, subscriber);
  } catch (error) {
    fail(`rejected: ${error?.message ?? error}`);
  }
  if (warnings.length) fail(`client warning: ${warnings.join(" | ")}`);
  const last = record.events.at(-1)?.type;
  if (last !== "RUN_FINISHED" && last !== "RUN_ERROR") {
    fail(`stream ended without RUN_FINISHED or RUN_ERROR (last event: ${last ?? "none"})`);
  }
  return record;
}

function toolName(toolCallId) {
  for (const message of agent.messages) {
    const call = message.toolCalls?.find((c) => c.id === toolCallId);
    if (call) return call.function.name;
  }
  return undefined;
}

async function runAnsweringTools(options) {
  let record = await run(options);
  for (let round = 0; record.pendingToolCallIds.length && round < MAX_TOOL_ROUNDS; round++) {
    for (const toolCallId of record.pendingToolCallIds) {
      const name = toolName(toolCallId);
      if (!(name in results)) fail(`pending tool call ${toolCallId} of unknown tool ${name}`);
      agent.addMessage({
        id: `result-${toolCallId}`,
        role: "tool",
        toolCallId,
        content: JSON.stringify(results[name]),
      });
    }
    record = await run({});
  }
}

for (const [index, step] of scenario.steps.entries()) {
  if (step.say !== undefined) {
    agent.addMessage({ id: `user-${index}`, role: "user", content: step.say });
    await runAnsweringTools({});
  } else if (step.resume !== undefined) {
    const answers = Object.fromEntries(agent.pendingInterrupts.map((i) => [i.id, step.resume]));
    await runAnsweringTools({ resume: buildResumeArray(agent.pendingInterrupts, answers) });
  } else if (step.click !== undefined) {
    const a2uiAction = {
      name: step.click.name,
      surfaceId: step.click.surfaceId ?? "",
      sourceComponentId: step.click.sourceComponentId ?? "button",
      timestamp: new Date().toISOString(),
      context: step.click.context ?? {},
    };
    // A press of a button a pending interrupt lists in metadata.answeredBy answers it (the
    // client sends no other run while it waits); any other press is forwardedProps.a2uiAction.
    const answered = agent.pendingInterrupts.filter((i) =>
      (i.metadata?.answeredBy ?? []).includes(a2uiAction.name),
    );
    if (answered.length) {
      const press = { status: "resolved", payload: { a2uiAction } };
      const payloads = Object.fromEntries(answered.map((i) => [i.id, press]));
      await runAnsweringTools({ resume: buildResumeArray(answered, payloads) });
    } else {
      await runAnsweringTools({ forwardedProps: { a2uiAction } });
    }
  } else {
    fail(`step ${index}: expected {say}, {resume} or {click}`);
  }
}
process.stdout.write(JSON.stringify({ runs, messages: agent.messages, state: agent.state }));
