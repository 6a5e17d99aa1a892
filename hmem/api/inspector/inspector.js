// hmem's memory inspector: one user's facts on both clocks, what replaced what, and why
// a search ranked what it did. It reads the public API with the key typed in (kept in
// this tab's sessionStorage only, sent as a bearer header: no cookie, so another site
// cannot act for you). It changes a fact only on a button press the person confirms:
// close (a retraction), never true (a correction), restore, erase a fact or the user,
// each the public API's own call. No libraries, no CDN.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const state = { all: [], shown: [], links: [], closedAlone: [] };

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === "class") node.setAttribute("class", v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

const day = (iso) => (iso ? iso.slice(0, 10) : "");
const when = (input) => (input.value ? new Date(input.value + "Z").toISOString() : null);

function say(id, text, error = false) {
  const node = $(id);
  node.textContent = text;
  node.classList.toggle("error", error);
}

async function api(path, init = {}) {
  const user = $("user").value.trim();
  const headers = { Authorization: `Bearer ${$("key").value.trim()}` };
  if (init.body) headers["Content-Type"] = "application/json";
  const res = await fetch(`/v1/users/${encodeURIComponent(user)}${path}`, { ...init, headers });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    // problem+json: title and detail say what went wrong
    throw new Error(`${res.status} ${body.title || res.statusText}: ${body.detail || ""}`);
  }
  return body;
}

async function listFacts(params) {
  const out = [];
  for (let offset = 0; ; offset += 1000) {
    const q = new URLSearchParams({ ...params, limit: "1000", offset: String(offset) });
    const page = await api(`/facts?${q}`);
    out.push(...page.items);
    if (page.next_offset === null || page.next_offset === undefined) return out;
  }
}

function asOfParams() {
  const p = {};
  const world = when($("as_of_event"));
  const belief = when($("as_of"));
  if (world) p.as_of_event = world;
  if (belief) p.as_of = belief;
  return p;
}

async function load() {
  say("status", "loading…");
  setPlaceholder();
  try {
    state.all = await listFacts({ include_closed: "true" });
    const asOf = asOfParams();
    state.shown = Object.keys(asOf).length ? await listFacts(asOf) : state.all;
    // the supersession links, from the history of every closed fact
    const seen = new Map();
    state.closedAlone = [];
    for (const fact of state.all.filter((f) => f.close_reason)) {
      const h = await api(`/facts/${encodeURIComponent(fact.id)}/history`);
      const steps = [...h.predecessors, ...h.successors];
      for (const step of steps) seen.set(`${step.link.old_id}>${step.link.new_id}`, step.link);
      if (!h.successors.length) state.closedAlone.push(fact);
    }
    state.links = [...seen.values()];
    say("status", `user ${$("user").value.trim()}: ${state.all.length} facts stored`);
    sessionStorage.setItem("hmem-key", $("key").value.trim());
    remember();
    render();
  } catch (err) {
    say("status", String(err.message || err), true);
  }
}

function remember() {
  const q = new URLSearchParams({ user: $("user").value.trim() });
  for (const id of ["as_of_event", "as_of"]) if ($(id).value) q.set(id, $(id).value);
  history.replaceState(null, "", `#${q}`);
}

function setPlaceholder() {
  const user = $("user").value.trim();
  const name = user ? user[0].toUpperCase() + user.slice(1) : "the user";
  $("query").placeholder = `e.g. Where does ${name} live?`;
}

// -- changes, each confirmed, each through the public API ---------------------------------
async function act(label, question, call, answer = null) {
  if (answer === null ? !window.confirm(question) : window.prompt(question) !== answer) {
    say("status", `${label}: cancelled`);
    return;
  }
  try {
    await call();
    await load();
    say("status", `${label}: done. ${$("status").textContent}`);
  } catch (err) {
    say("status", `${label} failed: ${String(err.message || err)}`, true);
  }
}

function factPath(f) {
  return `/facts/${encodeURIComponent(f.id)}`;
}

function actions(f) {
  const box = el("span", { class: "actions" });
  const button = (name, title, onClick) => {
    const b = el("button", { type: "button", class: "act", "data-act": name, title, text: name });
    b.addEventListener("click", onClick);
    box.append(b);
  };
  const quoted = `“${f.text}”`;
  if (!f.known_to) {
    button("close", "it stopped being true now (a retraction); restore undoes it", () =>
      act("close", `Close ${quoted}?\nIt stops being true now (a retraction). It stays as history; Restore undoes it.`,
        () => api(`${factPath(f)}/close`, { method: "POST", body: JSON.stringify({ reason: "retraction" }) })));
    button("never true", "it was never true (a correction); restore undoes it", () =>
      act("never true", `Mark ${quoted} as never true?\nA correction: its true window becomes empty. Restore undoes it.`,
        () => api(`${factPath(f)}/close`, { method: "POST", body: JSON.stringify({ reason: "user_edit" }) })));
  } else {
    button("restore", "believe it again (undoes a close or a replacement)", () =>
      act("restore", `Restore ${quoted}?\nIt is believed again, as before it was closed or replaced.`,
        () => api(`${factPath(f)}/restore`, { method: "POST" })));
  }
  button("erase", "delete it for good (not undoable)", () =>
    act("erase", `Erase ${quoted} for good?\nIt is deleted with its vector; this cannot be undone.`,
      () => api(factPath(f), { method: "DELETE" })));
  return box;
}

function eraseUser() {
  const user = $("user").value.trim();
  if (!user) return;
  act("erase user", `Erase EVERYTHING stored for user ${user}? This cannot be undone.\nType the user id to confirm:`,
    () => api("", { method: "DELETE" }), user);
}

function render() {
  renderTimeline();
  renderChains();
  const world = $("as_of_event").value;
  const belief = $("as_of").value;
  say(
    "asof-said",
    world || belief
      ? `showing what was ${world ? `true at ${world}` : "true now"} as ${belief ? `believed at ${belief}` : "believed now"}`
      : "showing every fact, open and closed"
  );
}

function range() {
  const times = [];
  for (const f of state.all) {
    for (const k of ["valid_from", "valid_to", "known_from", "known_to"]) if (f[k]) times.push(Date.parse(f[k]));
  }
  times.push(Date.now());
  for (const id of ["as_of_event", "as_of"]) if ($(id).value) times.push(Date.parse($(id).value + "Z"));
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  const pad = (hi - lo) * 0.02 || 86400000;
  return [lo - pad, hi + pad];
}

function bar(svg, x, from, to, y, h, cls, title) {
  const a = x(Date.parse(from));
  const b = to ? x(Date.parse(to)) : 100;
  const rect = el("svg:rect", { x: `${a}%`, y, width: `${Math.max(b - a, 0.4)}%`, height: h, class: cls });
  if (cls === "valid") rect.setAttribute("fill", to ? "#8fb3dd" : "#2f6fba");
  else rect.setAttribute("fill", to ? "#e8c590" : "#d08a1e");
  rect.append(el("svg:title", { text: title }));
  svg.append(rect);
}

function marks(svg, x, height) {
  const world = $("as_of_event").value;
  const belief = $("as_of").value;
  if (world) {
    const at = x(Date.parse(world + "Z"));
    svg.append(el("svg:line", { x1: `${at}%`, x2: `${at}%`, y1: 0, y2: height, stroke: "#0b7a3b", "stroke-width": 2 }));
  }
  if (belief) {
    const at = x(Date.parse(belief + "Z"));
    svg.append(el("svg:line", { x1: `${at}%`, x2: `${at}%`, y1: 0, y2: height, stroke: "#8e24aa", "stroke-width": 2, "stroke-dasharray": "3 2" }));
  }
}

function renderTimeline() {
  const box = $("timeline");
  box.replaceChildren();
  const [lo, hi] = range();
  const x = (t) => ((t - lo) / (hi - lo)) * 100;
  const facts = [...state.shown].sort((a, b) => a.valid_from.localeCompare(b.valid_from));
  $("count").textContent = `(${facts.length} shown)`;
  const axis = el("svg:svg", { class: "axis" });
  for (let y = new Date(lo).getUTCFullYear() + 1; Date.UTC(y, 0, 1) < hi; y++) {
    const at = x(Date.UTC(y, 0, 1));
    axis.append(el("svg:line", { x1: `${at}%`, x2: `${at}%`, y1: 12, y2: 22, stroke: "#9aa3ad" }));
    // a label at either edge is anchored inside the axis, not cut in half by it
    const anchor = at < 4 ? "start" : at > 96 ? "end" : "middle";
    axis.append(el("svg:text", { x: `${at}%`, y: 10, "font-size": 11, "text-anchor": anchor, fill: "#5b6670", text: String(y) }));
  }
  marks(axis, x, 22);
  box.append(el("div", { class: "row" }, el("span"), axis));
  if (!facts.length) {
    box.append(el("p", { class: "empty", text: "No facts in this view." }));
    return;
  }
  for (const f of facts) {
    const closed = Boolean(f.valid_to || f.known_to);
    // only a retraction or a correction ends belief; a replaced or ended fact is still
    // believed, with its end (docs/time.md)
    const withdrawn = ["retraction", "user_edit"].includes(f.close_reason) ? f.known_to : null;
    const meta = `${trueWindow(f)} · believed ${day(f.known_from)} → ${day(withdrawn) || "now"}`;
    const text = el("div", { class: "text" }, el("b", { text: f.text }));
    if (f.close_reason) text.append(el("span", { class: "badge closed", text: `closed: ${f.close_reason}` }));
    text.append(el("span", { class: "meta", text: `${meta} · ${f.category} · ${f.id}` }));
    text.append(actions(f));
    const svg = el("svg:svg", { class: "bars" });
    bar(svg, x, f.valid_from, f.valid_to, 2, 10, "valid", `valid ${meta}`);
    bar(svg, x, f.known_from, withdrawn, 15, 8, "belief", `belief ${meta}`);
    marks(svg, x, 26);
    box.append(el("div", { class: closed ? "row closed" : "row", "data-fact": f.id }, text, svg));
  }
}

// When it is (or was) true, as the API says: a start after now reads "from <date>".
function trueWindow(f) {
  if (f.valid_to && f.valid_to <= f.valid_from) return "never true";
  if (f.valid_to) return `true ${day(f.valid_from)} → ${day(f.valid_to)}`;
  if (Date.parse(f.valid_from) > Date.now()) return `true from ${day(f.valid_from)}`;
  return `true ${day(f.valid_from)} → now`;
}

function renderChains() {
  const list = $("chains");
  list.replaceChildren();
  const byId = new Map(state.all.map((f) => [f.id, f]));
  const belief = when($("as_of"));
  // a link learned after "believed at" was not yet known then: it is left out
  const links = state.links.filter((l) => !belief || l.at <= belief);
  const next = new Map();
  const hasPrev = new Set();
  for (const l of links) {
    if (!next.has(l.old_id)) next.set(l.old_id, []);
    next.get(l.old_id).push(l);
    hasPrev.add(l.new_id);
  }
  const heads = [...next.keys()].filter((id) => !hasPrev.has(id));
  for (const head of heads) {
    const line = el("li", { class: "chain" });
    let id = head;
    const seen = new Set();
    line.append(el("span", { class: "step old", text: byId.get(id)?.text || id }));
    while (next.has(id) && !seen.has(id)) {
      seen.add(id);
      const l = next.get(id)[0];
      const arrow = el("span", { class: "arrow", text: `— ${l.reason}${l.relation ? ` (${l.relation})` : ""}, ${day(l.at)} →` });
      if (l.inferred) arrow.append(el("span", { class: "badge inferred", text: "inferred" }));
      line.append(arrow);
      id = l.new_id;
      const fact = byId.get(id);
      line.append(el("span", { class: fact && (fact.valid_to || fact.known_to) ? "step old" : "step", text: fact?.text || id }));
    }
    const ended = byId.get(head);
    if (ended?.valid_to) line.append(el("span", { class: "meta", text: `  (first one true until ${day(ended.valid_to)})` }));
    list.append(line);
  }
  for (const f of state.closedAlone) {
    if (belief && f.known_to && f.known_to > belief) continue;
    list.append(
      el("li", { class: "chain" }, el("span", { class: "step old", text: f.text }),
        el("span", { class: "arrow", text: `— ${f.close_reason}, ${day(f.known_to || f.valid_to)}: closed with no successor` }))
    );
  }
  if (!list.children.length) list.append(el("li", { class: "empty", text: "Nothing was replaced in this view." }));
}

// A fact's text by id: what the user stored, never a 32-hex id, when the view has it.
function named(id, hit) {
  const steps = [...(hit.predecessors || []), ...(hit.successors || [])];
  const fact = state.all.find((f) => f.id === id) || steps.map((s) => s.fact).find((f) => f.id === id);
  return fact ? `“${fact.text}”` : "a fact outside this view";
}

function why(hit, rank, total) {
  const parts = Object.entries(hit.parts).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  const sum = parts.map(([k, v]) => `${k} ${v.toFixed(3)}`).join(" + ") || "no signal above zero";
  let text = `#${rank} of ${total}: score ${hit.score.toFixed(3)} = ${sum}`;
  if (parts.length) text += `; mostly ${parts[0][0]}`;
  if (hit.sources?.length) text += `; found by ${hit.sources.join(", ")}`;
  if (hit.promoted_by) text += `; brought in as the history of ${named(hit.promoted_by, hit)}`;
  if (hit.conflicts_with?.length) text += `; conflicts with ${hit.conflicts_with.map((id) => named(id, hit)).join(", ")}`;
  return text;
}

async function search(event) {
  event.preventDefault();
  const query = $("query").value.trim() || $("query").placeholder.replace(/^e\.g\. /, "");
  $("query").value = query;
  const body = { query, ...asOfParams() };
  const list = $("hits");
  list.replaceChildren();
  try {
    const r = await api("/search", { method: "POST", body: JSON.stringify(body) });
    say("search-said", `${r.hits.length} hits · mode ${r.mode} · dense ${r.dense ? r.strategy : "off"} · ` +
      `${r.candidates} candidates, ${r.dropped} dropped · ${r.tokens} tokens` +
      (r.notes.length ? ` · ${r.notes.join("; ")}` : ""));
    r.hits.forEach((hit, i) => {
      const f = hit.fact;
      const parts = el("div", { class: "parts" });
      for (const [k, v] of Object.entries(hit.parts).sort((a, b) => b[1] - a[1])) {
        const raw = hit.raw?.[k] !== undefined ? ` (raw ${hit.raw[k].toFixed(2)})` : "";
        parts.append(el("span", { class: v > 0 ? "part" : "part zero", text: `${k} ${v.toFixed(3)}${raw}` }));
      }
      const head = el("div", { class: "hit-head", text: `${hit.score.toFixed(3)}  ${f.text}` });
      if (f.close_reason) head.append(el("span", { class: "badge closed", text: `closed: ${f.close_reason}` }));
      const hist = [...hit.predecessors.map((s) => `replaced “${s.fact.text}” (${s.link.reason}, ${day(s.link.at)})`),
        ...hit.successors.map((s) => `replaced by “${s.fact.text}” (${s.link.reason}, ${day(s.link.at)})`)];
      list.append(el("li", { "data-fact": f.id }, head, parts,
        el("div", { class: "why", text: why(hit, i + 1, r.hits.length) }),
        ...hist.map((h) => el("div", { class: "why", text: h }))));
    });
    if (!r.hits.length) list.append(el("li", { class: "empty", text: "No hits." }));
  } catch (err) {
    say("search-said", String(err.message || err), true);
  }
}

// The user and "as of" come from the address (#user=maya&as_of=...): set at start, and
// again when the address changes in the same tab (another user typed into it).
function fromHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  const changed = (q.get("user") || "") !== $("user").value.trim() ||
    ["as_of_event", "as_of"].some((id) => (q.get(id) || "") !== $(id).value);
  $("user").value = q.get("user") || "";
  for (const id of ["as_of_event", "as_of"]) $(id).value = q.get(id) || "";
  return changed;
}

function start() {
  fromHash();
  setPlaceholder();
  $("key").value = sessionStorage.getItem("hmem-key") || "";
  window.addEventListener("hashchange", () => {
    if (!fromHash()) return;
    state.all = []; state.shown = []; state.links = []; state.closedAlone = [];
    $("hits").replaceChildren();
    say("search-said", "");
    render();
    if ($("user").value && $("key").value) load();
  });
  $("erase-user").addEventListener("click", eraseUser);
  $("who").addEventListener("submit", (e) => { e.preventDefault(); load(); });
  $("asof").addEventListener("submit", (e) => { e.preventDefault(); load(); });
  $("now").addEventListener("click", () => { $("as_of_event").value = ""; $("as_of").value = ""; load(); });
  $("search").addEventListener("submit", search);
  if ($("user").value && $("key").value) load();
}

document.addEventListener("DOMContentLoaded", start);
