// floe console: reads the JSON API under /api/ and runs jobs; every value is shown as text.
"use strict";

const state = { role: "none", csrf: null, project: "", kinds: [], stream: null, current: null };
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) tr.appendChild(c instanceof Node ? wrap(c) : el("td", c));
  return tr;
}

function wrap(node) {
  const td = document.createElement("td");
  td.appendChild(node);
  return td;
}

function say(text, cls) {
  const m = $("message");
  m.textContent = text || "";
  m.className = cls || "";
}

async function api(path, options) {
  const opts = Object.assign({ credentials: "same-origin", headers: {} }, options || {});
  if (opts.method && opts.method !== "GET") {
    opts.headers["Content-Type"] = "application/json";
    if (state.csrf) opts.headers["X-CSRF-Token"] = state.csrf;
  }
  const r = await fetch(path, opts);
  const text = await r.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = text; }
  return { status: r.status, body };
}

function stateClass(s) {
  if (/^(verified|loaded|built)/.test(s)) return "ok";
  if (/^(failed|diverged|catalog missing|interrupted)/.test(s)) return "bad";
  return "warn";
}

function age(seconds) {
  if (seconds === null || seconds === undefined || seconds < 0) return "never";
  if (seconds < 120) return seconds + " s";
  if (seconds < 7200) return Math.round(seconds / 60) + " min";
  if (seconds < 172800) return Math.round(seconds / 3600) + " h";
  return Math.round(seconds / 86400) + " d";
}

async function loadSession() {
  const r = await api("/api/session");
  const s = r.body || {};
  state.role = s.role || "none";
  state.csrf = s.csrf || null;
  $("role-badge").textContent = state.role === "none" ? "not logged in" : state.role + (s.open ? " (loopback, no tokens)" : "");
  $("role-badge").dataset.role = state.role;
  $("login").hidden = state.role !== "none";
  $("logout").hidden = state.role === "none" || s.open;
}

async function loadHealth() {
  const r = await api("/api/status");
  const tbody = $("health").tBodies[0];
  tbody.replaceChildren();
  if (r.status !== 200) return;
  const rows = r.body.tables || [];
  let bad = 0;
  for (const t of rows) {
    const st = el("span", t.state, stateClass(t.state));
    if (stateClass(t.state) === "bad") bad++;
    const tests = t.tests_failed === null || t.tests_failed === undefined ? "" :
      `${t.tests_passed ?? 0} passed, ${t.tests_failed} failed, ${t.tests_warned ?? 0} warned`;
    const rec = t.reconcile ? `${t.reconcile.tier || ""} ${t.reconcile.outcome || ""}`.trim() : "";
    const tr = row([t.table, t.layer, st, t.rows ?? "", age(t.age_seconds), tests, rec,
      [t.facts, t.cause].filter(Boolean).join(" — ")]);
    tr.dataset.table = t.table;
    tr.dataset.layer = t.layer;
    tr.dataset.state = t.state;
    tbody.appendChild(tr);
  }
  $("health-summary").textContent = `${rows.length} tables and layers, ${bad} failing` +
    (r.body.catalog_error ? ` — catalog: ${r.body.catalog_error}` : "");
}

async function loadBranches() {
  const r = await api("/api/branches");
  const ul = $("branches");
  ul.replaceChildren();
  if (r.status !== 200) return;
  const waiting = (r.body.branches || []).filter((b) => b.waiting);
  for (const b of waiting) {
    const li = el("li", `${b.branch} (${b.kind})`);
    li.dataset.branch = b.branch;
    ul.appendChild(li);
  }
  if (!waiting.length) ul.appendChild(el("li", r.body.repository ? "none waiting" : "no pipeline repository yet (run generate)"));
}

async function loadTables() {
  const r = await api("/api/tables");
  const tbody = $("tables").tBodies[0];
  tbody.replaceChildren();
  if (r.status !== 200) return;
  for (const t of r.body.tables || []) {
    const mode = el("span", t.mode, t.mode === "refused" ? "bad" : "");
    const tr = row([`${t.schema}.${t.table}`, mode, t.reason || "", t.watermark || "", (t.key || []).join(", ")]);
    tr.dataset.mode = t.mode;
    tbody.appendChild(tr);
  }
  if (!(r.body.tables || []).length) tbody.appendChild(row(["not generated yet: run plan, then generate", "", "", "", ""]));
}

async function loadRuns() {
  const r = await api("/api/runs");
  const tbody = $("runs").tBodies[0];
  tbody.replaceChildren();
  if (r.status !== 200) return;
  for (const run of r.body.runs || []) {
    const details = el("details");
    details.appendChild(el("summary", `${run.tables.length} records`));
    for (const t of run.tables) {
      const line = `${t.table} ${t.layer}: ${t.state}` + (t.rows !== null ? `, ${t.rows} rows` : "") +
        (t.error ? ` — ${t.error}` : "") + (t.cause ? ` (${t.cause})` : "");
      details.appendChild(el("div", line, stateClass(t.state)));
    }
    const tr = row([run.run_id, run.command, el("span", run.status, run.status === "ok" ? "ok" : run.status === "running" ? "warn" : "bad"),
      run.started_at, details]);
    tr.dataset.run = run.run_id;
    tbody.appendChild(tr);
  }
}

async function loadStack() {
  const r = await api("/api/stack");
  const dl = $("stack");
  dl.replaceChildren();
  if (r.status !== 200) return;
  const s = r.body;
  state.project = s.project;
  $("project").textContent = s.project;
  const items = [
    ["source", `${s.source.host}:${s.source.port}/${s.source.database} (schemas ${(s.source.schemas || []).join(", ")})`],
    ["catalog", s.catalog.kind], ["warehouse", s.catalog.warehouse + (s.catalog.endpoint ? ` at ${s.catalog.endpoint}` : "")],
    ["serve", s.serve]];
  for (const [k, v] of items) { dl.appendChild(el("dt", k)); dl.appendChild(el("dd", v)); }
}

async function loadJobs() {
  const r = await api("/api/jobs");
  if (r.status !== 200) return;
  state.kinds = r.body.kinds || [];
  const box = $("job-buttons");
  box.replaceChildren();
  for (const k of state.kinds.filter((k) => !k.confirm)) {
    const b = el("button", k.name);
    b.dataset.kind = k.name;
    b.title = k.what + (k.allowed ? "" : ` (needs ${k.role})`);
    b.disabled = !k.allowed;
    b.addEventListener("click", () => startJob(k.name));
    box.appendChild(b);
  }
  const destroy = state.kinds.find((k) => k.name === "destroy");
  $("destroy").disabled = !destroy || !destroy.allowed;
  $("confirm").disabled = $("destroy").disabled;
  const tbody = $("jobs").tBodies[0];
  tbody.replaceChildren();
  for (const j of r.body.jobs || []) {
    const link = el("a", "log");
    link.href = `/api/jobs/${encodeURIComponent(j.id)}/log`;
    link.target = "_blank";
    const tr = row([`${j.kind} ${j.id}`, j.started_by || "", j.started_at, el("span", j.status, j.status === "ok" ? "ok" : j.status === "running" ? "warn" : "bad"), j.exit_code ?? "", link]);
    tr.dataset.job = j.id;
    tbody.appendChild(tr);
  }
}

function follow(id, kind) {
  if (state.stream) state.stream.close();
  state.current = id;
  $("output").textContent = "";
  $("job-title").textContent = `${kind} ${id}`;
  $("cancel").hidden = state.role === "viewer" || state.role === "none";
  const es = new EventSource(`/api/jobs/${encodeURIComponent(id)}/events`);
  state.stream = es;
  es.onmessage = (ev) => {
    const out = $("output");
    out.textContent += ev.data + "\n";
    out.scrollTop = out.scrollHeight;
  };
  es.addEventListener("end", (ev) => {
    const end = JSON.parse(ev.data);
    $("output").textContent += `— ${end.status} (exit ${end.exit_code})\n`;
    $("output").dataset.ended = end.status;
    $("cancel").hidden = true;
    es.close();
    refresh();
  });
}

async function startJob(kind, confirm) {
  const body = { kind };
  if (confirm !== undefined) body.confirm = confirm;
  delete $("output").dataset.ended;
  const r = await api("/api/jobs", { method: "POST", body: JSON.stringify(body) });
  if (r.status === 202) {
    say(`started ${kind}`, "ok");
    follow(r.body.id, kind);
    loadJobs();
  } else {
    say((r.body && r.body.error && r.body.error.message) || `could not start ${kind} (${r.status})`, "bad");
  }
}

async function refresh() {
  await loadSession();
  await Promise.all([loadStack(), loadHealth(), loadBranches(), loadTables(), loadJobs(), loadRuns()]);
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const r = await api("/api/login", { method: "POST", body: JSON.stringify({ token: $("token").value }) });
    $("token").value = "";
    say(r.status === 200 ? "logged in" : "that token is not known", r.status === 200 ? "ok" : "bad");
    refresh();
  });
  $("logout").addEventListener("click", async () => {
    await api("/api/logout", { method: "POST" });
    refresh();
  });
  $("destroy").addEventListener("click", () => startJob("destroy", $("confirm").value));
  $("cancel").addEventListener("click", async () => {
    if (state.current) await api(`/api/jobs/${encodeURIComponent(state.current)}/cancel`, { method: "POST" });
  });
  refresh();
  setInterval(() => { loadHealth(); loadJobs(); loadRuns(); }, 15000);
});
