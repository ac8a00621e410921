#!/usr/bin/env node
// An editor, as far as ACP goes: drives an agent (`sayso acp`) with the official ACP TypeScript
// SDK (@agentclientprotocol/sdk, the version pinned in package.json) and writes down everything
// it receives, for the end-to-end tests in tests/suite/acp_sdk.rs.
//
//   node driver.mjs SCENARIO.json LOG.jsonl
//
// The SDK is loaded from $SAYSO_TEST_ACP_CLIENT_DIR (where scripts/test runs `npm ci`), else
// from this directory. The scenario (JSON) says what to spawn, what the client offers and what it
// does, step by step; the log gets one JSON object per line, in the order things happened.
// Nothing here interprets sayso's answers: the tests assert on the log.
//
// Scenario:
//   agent:       { command, args: [..], env: {..}, cwd, stderr: "file for the agent's stderr" }
//   client:      { fs: { read: bool, write: bool }, terminal: bool }   (clientCapabilities)
//   fs:          "memory" (default: writes land in `buffers` only, reads come from `buffers`,
//                then from disk) | "disk" (reads and writes go to disk)
//   buffers:     { "/abs/path": "text" }       the editor's open buffers
//   permissions: [answer, ..]                  one per session/request_permission, in order:
//                "allow_once" | "allow_always" | "reject_once" | "reject_always" (the option of
//                that kind), { "kind": "reject_once", "reason": ".." } (the reason in the
//                selected outcome's `_meta.reason`), { "option_id": ".." }, "cancelled",
//                "cancel_prompt" (send session/cancel, then answer cancelled, as the spec asks),
//                "never" (answer only when the prompt is cancelled or the connection closes),
//                "disconnect" (close both pipes, leave the request unanswered, wait for exit).
//                None left: answered "cancelled", logged as unscripted.
//   timeout_ms:  per step (default 20000); a step that takes longer is logged and ends the run.
//   steps:       [step, ..]:
//     { op: "initialize", protocolVersion?, clientInfo? }
//     { op: "new_session", as?: "name", cwd?, mcpServers?: [] }
//     { op: "load_session", session: "name" | sessionId: "..", as?, cwd?, mcpServers? }
//     { op: "set_mode", session?, modeId }
//     { op: "prompt", session?, text? | prompt?: [ContentBlock], cancel_on?: { update:
//         "agent_message_chunk" | "tool_call" | ..., count?: 1 } }
//     { op: "cancel", session? }                 the session/cancel notification
//     { op: "request", method, params? }         any method, answered or not (logged either way)
//     { op: "notify", method, params? }
//     { op: "close" }                            close stdin, wait for the agent to exit
//   A step's `session` names a session by its `as` (default: the last one made or loaded).
//
// Log events (`event` field): spawned, recv / sent (every JSON-RPC message on the wire),
// not_json (a stdout line that is not JSON), update (session/update params), permission
// (request params, the answer given), fs_read / fs_write, response / error (a step's outcome,
// with `step` index and `op`), cancel_sent, disconnected, exit (code, signal), timeout, done.

import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

const [scenarioPath, logPath] = process.argv.slice(2);
if (!scenarioPath || !logPath) {
  process.stderr.write("usage: node driver.mjs SCENARIO.json LOG.jsonl\n");
  process.exit(2);
}
const scenario = JSON.parse(fs.readFileSync(scenarioPath, "utf8"));

const here = path.dirname(fileURLToPath(import.meta.url));
const sdkHome = process.env.SAYSO_TEST_ACP_CLIENT_DIR || here;
const sdkRequire = createRequire(path.join(sdkHome, "package.json"));
const acp = await import(pathToFileURL(sdkRequire.resolve("@agentclientprotocol/sdk")).href);

const logFd = fs.openSync(logPath, "w");
let seq = 0;
function log(event) {
  fs.writeSync(logFd, JSON.stringify({ seq: seq++, ...event }) + "\n");
}

const stepTimeout = scenario.timeout_ms ?? 20000;
const buffers = new Map(Object.entries(scenario.buffers ?? {}));
const fsMode = scenario.fs ?? "memory";
const answers = [...(scenario.permissions ?? [])];

// --- the agent process -------------------------------------------------------------------------
const agentSpec = scenario.agent;
const child = spawn(agentSpec.command, agentSpec.args ?? [], {
  cwd: agentSpec.cwd,
  env: agentSpec.env ?? process.env,
  stdio: ["pipe", "pipe", agentSpec.stderr ? fs.openSync(agentSpec.stderr, "w") : "inherit"],
});
log({ event: "spawned", pid: child.pid });
const exited = new Promise((resolve) => {
  child.on("exit", (code, signal) => {
    log({ event: "exit", code, signal });
    resolve({ code, signal });
  });
});
let disconnected = false;
let closing = false;
child.stdin.on("error", (e) => log({ event: "stdin_error", message: String(e) }));

// Raw stdout, teed: one copy checked line by line (is every line JSON?), one to the SDK.
const [forSdk, forCheck] = Readable.toWeb(child.stdout).tee();
(async () => {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of forCheck) {
    pending += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line) continue;
      try {
        JSON.parse(line);
      } catch {
        log({ event: "not_json", line: line.slice(0, 2000) });
      }
    }
  }
})().catch(() => {});

const wire = acp.ndJsonStream(Writable.toWeb(child.stdin), forSdk);
const inbound = wire.readable.pipeThrough(
  new TransformStream({
    transform(message, controller) {
      log({ event: "recv", message });
      controller.enqueue(message);
    },
  }),
);
const outbound = new TransformStream({
  transform(message, controller) {
    log({ event: "sent", message });
    controller.enqueue(message);
  },
});
outbound.readable.pipeTo(wire.writable).catch(() => {});
const stream = { readable: inbound, writable: outbound.writable };

// --- what the client does when the agent asks --------------------------------------------------
/** Cancel triggers of the prompt in flight, and permission requests waiting for a cancel. */
let trigger = null;
const waitingForCancel = new Set();
let agentCtx = null;

async function sendCancel(sessionId, why) {
  log({ event: "cancel_sent", sessionId, why });
  await agentCtx.notify(acp.methods.agent.session.cancel, { sessionId });
  for (const resolve of waitingForCancel) resolve({ outcome: { outcome: "cancelled" } });
  waitingForCancel.clear();
}

function disconnect() {
  disconnected = true;
  log({ event: "disconnected" });
  child.stdin.destroy();
  child.stdout.destroy();
}

function optionOfKind(options, kind) {
  return options.find((o) => o.kind === kind);
}

const app = acp
  .client({ name: "sayso-acp-test-driver" })
  .onNotification(acp.methods.client.session.update, async ({ params }) => {
    log({ event: "update", sessionId: params.sessionId, update: params.update });
    const t = trigger;
    if (t && params.sessionId === t.sessionId && params.update.sessionUpdate === t.update) {
      t.seen += 1;
      if (t.seen === t.count) {
        trigger = null;
        await sendCancel(params.sessionId, `after ${t.count} ${t.update}`);
      }
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    const scripted = answers.length > 0;
    const answer = scripted ? answers.shift() : "cancelled";
    const entry = { event: "permission", request: params, answer, scripted };
    const kind = typeof answer === "object" ? answer.kind : answer;
    // A reason travels in `_meta.reason` of the selected outcome (ACP has no field for it).
    const meta = typeof answer === "object" && answer.reason ? { _meta: { reason: answer.reason } } : {};
    let outcome;
    if (typeof answer === "object" && answer.option_id) {
      outcome = { outcome: { outcome: "selected", optionId: answer.option_id, ...meta } };
    } else if (["allow_once", "allow_always", "reject_once", "reject_always"].includes(kind)) {
      const option = optionOfKind(params.options, kind);
      if (!option) {
        log({ ...entry, missing_option: kind });
        outcome = { outcome: { outcome: "cancelled" } };
      } else {
        outcome = { outcome: { outcome: "selected", optionId: option.optionId, ...meta } };
      }
    } else if (answer === "cancelled") {
      outcome = { outcome: { outcome: "cancelled" } };
    } else if (answer === "cancel_prompt") {
      log(entry);
      await sendCancel(params.sessionId, "during a permission request");
      return { outcome: { outcome: "cancelled" } };
    } else if (answer === "never") {
      log(entry);
      return await new Promise((resolve) => waitingForCancel.add(resolve));
    } else if (answer === "disconnect") {
      log(entry);
      disconnect();
      return await new Promise(() => {});
    } else {
      log({ ...entry, bad_answer: true });
      outcome = { outcome: { outcome: "cancelled" } };
    }
    log({ ...entry, response: outcome });
    return outcome;
  })
  .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
    let content;
    let source;
    if (fsMode === "memory" && buffers.has(params.path)) {
      content = buffers.get(params.path);
      source = "buffer";
    } else {
      try {
        content = fs.readFileSync(params.path, "utf8");
        source = "disk";
      } catch (e) {
        log({ event: "fs_read", params, error: String(e) });
        throw acp.RequestError.resourceNotFound(params.path);
      }
    }
    if (params.line != null || params.limit != null) {
      const lines = content.split("\n");
      const start = Math.max((params.line ?? 1) - 1, 0);
      const end = params.limit != null ? start + params.limit : lines.length;
      content = lines.slice(start, end).join("\n");
    }
    log({ event: "fs_read", params, source, content });
    return { content };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
    if (fsMode === "disk") {
      fs.writeFileSync(params.path, params.content);
    } else {
      buffers.set(params.path, params.content);
    }
    log({ event: "fs_write", params, target: fsMode });
    return {};
  });

// --- the scripted steps -------------------------------------------------------------------------
const sessions = new Map();
let current = null;

function sessionOf(step) {
  if (step.sessionId) return step.sessionId;
  if (step.session) {
    if (!sessions.has(step.session)) throw new Error(`no session named ${step.session}`);
    return sessions.get(step.session);
  }
  if (!current) throw new Error("no session yet");
  return current;
}

function withTimeout(promise, what) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout: ${what} took over ${stepTimeout} ms`)), stepTimeout);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function errorOf(e) {
  if (e && typeof e === "object" && "code" in e) {
    return { code: e.code, message: e.message, data: e.data ?? null };
  }
  return { code: null, message: String(e?.message ?? e) };
}

async function runStep(ctx, step) {
  const cwd = step.cwd ?? agentSpec.cwd ?? process.cwd();
  switch (step.op) {
    case "initialize":
      return ctx.request(acp.methods.agent.initialize, {
        protocolVersion: step.protocolVersion ?? acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: {
            readTextFile: Boolean(scenario.client?.fs?.read),
            writeTextFile: Boolean(scenario.client?.fs?.write),
          },
          terminal: Boolean(scenario.client?.terminal),
        },
        clientInfo: step.clientInfo ?? { name: "sayso-acp-test-driver", version: "1" },
      });
    case "new_session": {
      const r = await ctx.request(acp.methods.agent.session.new, {
        cwd,
        mcpServers: step.mcpServers ?? [],
      });
      current = r.sessionId;
      if (step.as) sessions.set(step.as, r.sessionId);
      return r;
    }
    case "load_session": {
      const sessionId = sessionOf(step);
      const r = await ctx.request(acp.methods.agent.session.load, {
        sessionId,
        cwd,
        mcpServers: step.mcpServers ?? [],
      });
      current = sessionId;
      if (step.as) sessions.set(step.as, sessionId);
      return r ?? null;
    }
    case "set_mode":
      return (
        (await ctx.request(acp.methods.agent.session.setMode, {
          sessionId: sessionOf(step),
          modeId: step.modeId,
        })) ?? null
      );
    case "prompt": {
      const sessionId = sessionOf(step);
      const prompt = step.prompt ?? [{ type: "text", text: step.text ?? "" }];
      if (step.cancel_on) {
        trigger = { sessionId, update: step.cancel_on.update, count: step.cancel_on.count ?? 1, seen: 0 };
      }
      try {
        return await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt });
      } finally {
        trigger = null;
      }
    }
    case "cancel":
      await sendCancel(sessionOf(step), "step");
      return null;
    case "request":
      return (await ctx.request(step.method, step.params ?? {})) ?? null;
    case "notify":
      await ctx.notify(step.method, step.params ?? {});
      return null;
    case "close":
      closing = true;
      child.stdin.end();
      return await exited;
    default:
      throw new Error(`unknown op ${step.op}`);
  }
}

async function runAll(ctx) {
  agentCtx = ctx;
  for (const [index, step] of (scenario.steps ?? []).entries()) {
    if (disconnected) break;
    try {
      const result = await withTimeout(
        Promise.race([
          runStep(ctx, step),
          // A disconnect in a handler ends the step (its request will never be answered).
          exited.then((status) => {
            if (closing) return status;
            if (!disconnected) throw new Error("the agent exited");
            return "disconnected";
          }),
        ]),
        `step ${index} (${step.op})`,
      );
      log({ event: "response", step: index, op: step.op, result: result ?? null });
    } catch (e) {
      if (disconnected) break;
      const error = errorOf(e);
      log({ event: "error", step: index, op: step.op, error });
      if (String(error.message).startsWith("timeout:")) {
        log({ event: "timeout", step: index });
        return;
      }
    }
  }
}

const connection = app.connect(stream);
await runAll(connection.agent).catch((e) => log({ event: "driver_error", message: String(e) }));

// The end: after a disconnect the agent must go by itself; otherwise close stdin and let it go.
if (!disconnected) child.stdin.end();
const ended = await Promise.race([
  exited.then(() => true),
  new Promise((r) => setTimeout(() => r(false), stepTimeout)),
]);
if (!ended) {
  log({ event: "timeout", waiting_for: "exit" });
  child.kill("SIGKILL");
  await exited;
}
connection.close();
log({ event: "done", buffers: Object.fromEntries(buffers) });
fs.closeSync(logFd);
process.exit(0);
