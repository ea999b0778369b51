// The President page: Watch (step through recorded hands) and Play (a session against agents).
// Plain JavaScript, no build step. The server holds every game; this page only draws what it answers.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "president-game-token";
const FORM_KEY = "president-game-form";
let meta = null;

// ------------------------------------------------------------------ helpers
function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Game-Token"] = token;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  const text = await response.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { data = text; }
  if (!response.ok) {
    const message = data && data.error ? data.error : `${response.status} ${response.statusText}`;
    const err = new Error(message);
    err.status = response.status;
    throw err;
  }
  return data;
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) node.appendChild(c);
  return node;
}

function cardNode(card) {
  const node = el("span", { class: "card" + (card.red ? " red" : ""), "data-name": card.name,
                             "data-kind": card.kind, title: card.name });
  node.appendChild(el("span", { text: card.rank }));
  if (card.suit) node.appendChild(el("span", { text: card.suit }));
  return node;
}

function seatPlace(k, P) {
  // seat k places after the bottom one, clockwise on the screen (the order of play): bottom, left, top, right
  const angle = Math.PI / 2 + (2 * Math.PI * k) / P;
  return { left: 50 + 39 * Math.cos(angle), top: 50 + 37 * Math.sin(angle) };
}

function lastPlayNode(last) {
  // what the seat's player did last this hand: its words and cards, faded when of an earlier trick
  const node = el("div", { class: "last" + (last.current ? "" : " earlier") + (last.pass ? " pass" : "") });
  node.appendChild(el("span", { class: "words", text: last.words, title: last.current ? "this trick" : "an earlier trick" }));
  if (last.cards.length) {
    const row = el("span", { class: "cards tiny" });
    last.cards.forEach((c) => row.appendChild(cardNode(c)));
    node.appendChild(row);
  }
  return node;
}

function seatNode(s, table, options) {
  const box = el("div", { class: "seat" + (s.acting ? " acting" : "") + (s.place ? " out" : ""),
                          "data-seat": String(s.seat), "data-player": String(s.player) });
  const who = el("div", { class: "who", text: s.player === options.you ? "you" : `p${s.player} ${s.agent}` });
  if (s.rank !== "-") who.appendChild(el("span", { class: "badge", text: s.rank }));
  box.appendChild(who);
  const facts = [`seat ${s.seat}`, `${s.n_cards} card${s.n_cards === 1 ? "" : "s"}`];
  if (s.points !== null) facts.push(`${s.points} point${s.points === 1 ? "" : "s"}`);
  if (s.hand_points !== null) facts.push(`${s.hand_points >= 0 ? "+" : ""}${s.hand_points} this hand`);
  if (s.passed) facts.push(table.pass_words);
  if (s.place) facts.push(`place ${s.place}`);
  if (s.exposed) facts.push(`exposed ${s.exposed}`);
  box.appendChild(el("div", { class: "facts", text: facts.join(" · ") }));
  if (s.player !== options.handBelow) {  // the person's own cards are drawn once, below the table
    const row = el("div", { class: "cards mini held" + (s.cards ? "" : " backs") });
    if (s.cards) s.cards.forEach((c) => row.appendChild(cardNode(c)));
    else for (let i = 0; i < s.n_cards; i++) row.appendChild(el("span", { class: "card back" }));
    box.appendChild(row);
  }
  if (s.last) box.appendChild(lastPlayNode(s.last));
  return box;
}

function trickNode(table) {
  const trick = el("div", { class: "trick" });
  const facts = [`hand ${table.hand_no}`, table.phase, table.direction];
  if (table.revolution) facts.push("REVOLUTION");
  trick.appendChild(el("div", { class: "facts", text: facts.join(" · ") }));
  trick.appendChild(el("div", { class: "top-words", text: table.top_text }));
  if (table.claim) {  // poker: a claim being picked (its maker's view, or every hand's)
    const picked = table.claim.picked.join(" ") || "none yet";
    trick.appendChild(el("div", { class: "claim-words", text: `claimed: ${table.claim.words} (picked: ${picked})` }));
  }
  if (table.top && table.top.cards) {
    const row = el("div", { class: "cards top-cards" });
    table.top.cards.forEach((c) => row.appendChild(cardNode(c)));
    trick.appendChild(row);
  }
  return trick;
}

// The table as a felt: the seats around it in the order of play, the seat of options.bottom (a player) at the
// bottom, the trick in the middle. options.you names that player "you"; options.handBelow's cards are not drawn
// at the seat (the page draws them below the table).
function drawTable(area, table, options = {}) {
  area.innerHTML = "";
  const P = table.seats.length;
  area.classList.toggle("many", P > 6);
  const bottom = table.seats.find((s) => s.player === options.bottom) || table.seats[0];
  for (const s of table.seats) {
    const node = seatNode(s, table, options);
    const at = seatPlace((s.seat - bottom.seat + P) % P, P);
    node.style.left = `${at.left}%`;
    node.style.top = `${at.top}%`;
    area.appendChild(node);
  }
  area.appendChild(trickNode(table));
  fitSeats(area);
}

function fitSeats(area) {
  // keep every seat inside the felt: a seat near an edge is pulled in by what sticks out
  const box = area.getBoundingClientRect();
  if (!box.width) return;   // not shown: fitted when its page is
  for (const node of area.querySelectorAll(".seat")) {
    const r = node.getBoundingClientRect();
    let dx = 0, dy = 0;
    if (r.left < box.left + 4) dx = box.left + 4 - r.left;
    if (r.right > box.right - 4) dx = box.right - 4 - r.right;
    if (r.top < box.top + 4) dy = box.top + 4 - r.top;
    if (r.bottom > box.bottom - 4) dy = box.bottom - 4 - r.bottom;
    if (dx || dy) node.style.transform = `translate(calc(-50% + ${dx}px), calc(-50% + ${dy}px))`;
  }
}

// ------------------------------------------------------------------ tabs: a URL each (#watch, #play)
function pageOfHash() {
  return location.hash === "#play" ? "play" : location.hash === "#watch" ? "watch" : null;
}

function showPage(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.page === name);
  $("page-watch").hidden = name !== "watch";
  $("page-play").hidden = name !== "play";
  document.body.classList.toggle("on-play", name === "play");
  if (name === "play") refitPlay();
  else if (watch.frames.length) drawFrame();
  showError("");
}

function route() {
  showPage(pageOfHash() || "watch");
}

// ------------------------------------------------------------------ watch
const watch = { setId: null, hands: [], index: null, frames: [], step: 0 };

async function loadSets() {
  const data = await api("/api/records");
  const select = $("record-set");
  for (const s of data.sets) {
    select.appendChild(el("option", { value: s.id, text: `${s.name} (${s.hands} hands)` }));
  }
  if (data.sets.length) {
    select.value = data.sets[0].id;
    await openSet(data.sets[0].id);
  }
}

async function openSet(setId, known) {
  watch.setId = setId;
  watch.index = null;
  const data = known || await api(`/api/records/${encodeURIComponent(setId)}`);
  watch.hands = data.hands;
  const body = $("hand-list").querySelector("tbody");
  body.innerHTML = "";
  for (const h of data.hands) {
    const row = el("tr", { class: "hand-row", "data-index": String(h.index) });
    for (const v of [h.index, h.preset, h.session, h.hand, h.points.join(" ")]) row.appendChild(el("td", { text: String(v) }));
    row.addEventListener("click", () => openHand(h.index).catch((e) => showError(e.message)));
    body.appendChild(row);
  }
  if (data.hands.length) await openHand(0);
}

async function openHand(index) {
  const viewer = $("viewer").value;
  const url = `/api/records/${encodeURIComponent(watch.setId)}/${index}?viewer=${viewer}`;
  // While the hand loads the steps stay still: a step taken now would be undone when it arrives.
  $("step-label").textContent = `loading hand ${index}…`;
  for (const id of ["first", "prev", "next", "last"]) $(id).disabled = true;
  let data, frames;
  try {
    data = await api(url);
    frames = data.frames;
    for (let next = data.next; next !== null; ) {   // the server answers a page of frames at a time
      const page = await api(`${url}&start=${next}`);
      frames.push(...page.frames);
      next = page.next;
    }
  } catch (e) {
    drawFrame();                                   // the hand shown before, its steps usable again
    throw e;
  }
  watch.index = index;
  watch.frames = frames;
  watch.step = 0;
  const players = data.summary.players;
  const select = $("viewer");
  if (select.options.length !== players + 1) {
    const keep = select.value;
    select.innerHTML = "";
    select.appendChild(el("option", { value: "all", text: "all hands" }));
    for (let p = 0; p < players; p++) select.appendChild(el("option", { value: String(p), text: `player ${p}'s view` }));
    select.value = keep;
  }
  for (const row of document.querySelectorAll("#hand-list tbody tr")) row.classList.toggle("open", row.dataset.index === String(index));
  showError("");
  drawFrame();
}

function drawFrame() {
  const n = watch.frames.length;
  if (!n) return;
  const frame = watch.frames[watch.step];
  $("step-label").textContent = watch.step === 0 ? `start of the hand (0 / ${n - 1})` : `decision ${watch.step} / ${n - 1}`;
  $("event").textContent = frame.event;
  const viewer = $("viewer").value === "all" ? undefined : Number($("viewer").value);
  drawTable($("watch-table"), frame.table, { bottom: viewer === undefined ? frame.table.seats[0].player : viewer });
  $("first").disabled = $("prev").disabled = watch.step === 0;
  $("next").disabled = $("last").disabled = watch.step === n - 1;
}

function moveTo(step) {
  watch.step = Math.max(0, Math.min(watch.frames.length - 1, step));
  drawFrame();
}

async function uploadRecords(file) {
  const text = await file.text();
  const data = await api(`/api/records?name=${encodeURIComponent(file.name)}`,
                         { method: "POST", body: text, headers: { "Content-Type": "application/x-ndjson" } });
  const select = $("record-set");
  select.appendChild(el("option", { value: data.id, text: `${data.name} (${data.hands.length} hands)` }));
  select.value = data.id;
  await openSet(data.id, data);
}

// ------------------------------------------------------------------ play
// preview: what the server says the selected cards make in a poker play ({key, claims, error});
// wantClaim: the claim chosen from the list of legal claims, preferred when the selection makes it;
// sending: a move is on its way to the server.
const play = { view: null, selected: [], preview: null, wantClaim: null, sending: false };

// The server plays agents by name only: the scripted ones, the zoo's, and the agent files of its --agents-dir.
function agentChoices(presetName) {
  const choices = meta.agents.slice();
  if (meta.zoo.includes(presetName)) choices.push(`zoo:${presetName}`);
  return choices.concat(meta.files || []);
}

function drawOpponentChoices() {
  const box = $("opponents");
  const presetName = $("preset").value;
  const players = Number($("players").value);
  const seat = Number($("seat").value);
  const old = {};
  for (const node of box.querySelectorAll("select")) old[node.dataset.player] = node.value;
  box.innerHTML = "";
  for (let p = 0; p < players; p++) {
    if (p === seat) continue;
    const select = el("select", { "data-player": String(p), class: "opponent" });
    for (const c of agentChoices(presetName)) select.appendChild(el("option", { value: c, text: c }));
    select.value = old[p] && agentChoices(presetName).includes(old[p]) ? old[p] : "heuristic";
    const label = el("label", { text: `player ${p}: ` });
    label.appendChild(select);
    box.appendChild(label);
  }
}

function opponentSpecs() {
  return Array.from($("opponents").querySelectorAll("select"), (select) => select.value);
}

async function startGame(event) {
  event.preventDefault();
  let options = {};
  const text = $("options").value.trim();
  if (text) {
    try { options = JSON.parse(text); } catch (e) { showError(`Other options: not JSON (${e.message})`); return; }
  }
  const body = {
    preset: $("preset").value,
    players: Number($("players").value),
    seat: Number($("seat").value),
    opponents: opponentSpecs(),
    random_ranks: $("random-ranks").checked,
    options,
  };
  if ($("seed").value !== "") body.seed = $("seed").value.trim();   // digits: a 64-bit seed is exact as text
  if ($("hands").value !== "") body.hands = Number($("hands").value);
  try {
    const data = await api("/api/game", { method: "POST", json: body });
    localStorage.setItem(TOKEN_KEY, data.token);
    localStorage.setItem(FORM_KEY, JSON.stringify(formValues()));   // the form comes back with the game
    showError("");
    $("settings").open = false;
    if (location.hash !== "#play") location.hash = "#play";
    drawGame(data.view);
  } catch (e) { showError(e.message); }
}

// The form's fields as they are (the opponents by player: an agent's name), and back.
function formValues() {
  const opponents = {};
  for (const select of $("opponents").querySelectorAll("select")) opponents[select.dataset.player] = { choice: select.value };
  return { preset: $("preset").value, players: $("players").value, seat: $("seat").value, seed: $("seed").value,
           hands: $("hands").value, random_ranks: $("random-ranks").checked, options: $("options").value,
           opponents };
}

function restoreForm() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(FORM_KEY) || "null"); } catch (e) { saved = null; }
  if (!saved || !meta.presets.some((p) => p.name === saved.preset)) return;
  $("preset").value = saved.preset;
  for (const name of ["players", "seat", "seed", "hands", "options"]) $(name).value = saved[name] ?? "";
  $("random-ranks").checked = Boolean(saved.random_ranks);
  drawOpponentChoices();
  for (const select of $("opponents").querySelectorAll("select")) {
    const o = (saved.opponents || {})[select.dataset.player];
    if (o && [...select.options].some((x) => x.value === o.choice)) select.value = o.choice;
  }
}

function selectedNames() {
  return play.selected.map((i) => play.view.hand[i].name);
}

// A poker play (docs/rules.md 41-48): the server names the claims the selected cards make.
function pokerPlay() {
  return Boolean(play.view && play.view.your_turn && play.view.table.poker && play.view.table.prompt === "play");
}

function selectionKey() {
  return JSON.stringify(selectedNames().sort());
}

async function previewSelection() {
  if (!pokerPlay()) return;
  const key = selectionKey();
  if (!play.selected.length) { play.preview = null; refreshButtons(); return; }
  if (play.preview && play.preview.key === key) return;
  play.preview = { key, claims: null };
  refreshButtons();
  let result;
  try {
    const data = await api("/api/game/claims", { method: "POST", json: { cards: selectedNames() } });
    result = { key, claims: data.claims, error: "" };
  } catch (e) { result = { key, claims: [], error: e.message }; }
  if (play.preview && play.preview.key === key && selectionKey() === key) {
    play.preview = result;
    refreshButtons();
  }
}

function chosenClaim() {
  const p = play.preview;
  if (!pokerPlay() || !p || p.key !== selectionKey() || !p.claims || !p.claims.length) return null;
  const id = Number($("claim-choice").value);
  return p.claims.find((c) => c.id === id) || p.claims[0];
}

function refreshPoker() {
  const p = play.preview;
  const current = p && p.key === selectionKey() ? p : null;
  const choice = $("claim-choice");
  const claims = current && current.claims ? current.claims : [];
  if (choice.dataset.key !== (current ? current.key : "")) {
    choice.innerHTML = "";
    for (const c of claims) choice.appendChild(el("option", { value: String(c.id), text: c.words }));
    choice.dataset.key = current && current.claims ? current.key : "";
  }
  if (claims.some((c) => c.id === play.wantClaim)) choice.value = String(play.wantClaim);
  choice.hidden = claims.length < 2;
  const claim = chosenClaim();
  const verb = play.view.table.claim ? "Pick" : "Play";
  $("play-btn").disabled = !claim;
  $("play-btn").textContent = claim ? `${verb}: ${claim.play}` : (current && !current.claims ? `${verb} …` : verb);
  $("claim-hint").textContent = current && current.error ? current.error : "";
}

function selectedTokens() {
  return play.selected.map((i) => play.view.hand[i].match).sort();
}

function matchingMove() {
  if (!play.view || !play.view.your_turn || !play.selected.length) return null;
  const want = JSON.stringify(selectedTokens());
  return play.view.legal.find((m) => m.id !== 0 && JSON.stringify(m.match) === want) || null;
}

function refreshButtons() {
  if (pokerPlay()) refreshPoker();
  else {
    const move = matchingMove();
    const verb = { play: "Play", claim: "Claim", "give back": "Give back", trade: "Trade" }[play.view.table.prompt] || "Play";
    $("play-btn").disabled = !move;
    $("play-btn").textContent = move ? `${verb}: ${move.words}` : verb;
    $("claim-choice").hidden = true;
    $("claim-hint").textContent = "";
  }
  const pass = play.view.your_turn && play.view.legal.some((m) => m.id === 0);
  $("pass-btn").disabled = !pass;
  for (const [i, node] of [...$("my-hand").children].entries()) node.classList.toggle("selected", play.selected.includes(i));
}

// The agents may run out of the server's time for one request (the view says "waiting"): the page then asks
// again until it is your turn. A server that is busy with this game (409: another request holds it) or with this
// browser (429: too many of its requests in progress) is asked again a little later.
let pollTimer = null;
const BUSY = [409, 429];

function pollGame(delay) {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(async () => {
    try {
      drawGame(await api("/api/game"));
    } catch (e) {
      if (BUSY.includes(e.status)) pollGame(1000);
      else showError(e.message);
    }
  }, delay);
}

function gameHead(view) {
  const t = view.table;
  if (view.over) {
    return `Session over after ${view.hands_done} hand(s): ` +
      view.standings.map((s) => `${s.player === view.you ? "you" : `p${s.player} ${s.agent}`} ${s.points}`).join(", ") +
      ` · seed ${view.seed}`;
  }
  const state = view.your_turn ? "Your turn" : view.waiting ? "The others are playing…" : "Waiting";
  return `${state} · ${t.preset}, hand ${t.hand_no} · you are player ${view.you}`;   // the seed is shown when the session ends
}

function refitPlay() {
  if (play.view && !$("page-play").hidden) {
    drawTable($("play-table"), play.view.table, { bottom: play.view.you, you: play.view.you, handBelow: play.view.you });
  }
}

function drawGame(view) {
  clearTimeout(pollTimer);
  if (view.waiting) pollGame(300);
  play.view = view;
  play.selected = [];
  play.preview = null;
  play.wantClaim = null;
  $("claim-choice").dataset.key = "";
  $("game").hidden = false;
  $("no-game").hidden = true;
  $("game-head").textContent = gameHead(view);
  $("settings-summary").textContent = view.over ? "New game" : "New game…";
  $("download-btn").disabled = !view.over;   // the records (and the seed) come when the session ends
  refitPlay();
  const prompts = { play: "Your cards: click cards, then Play", "give back": "Give back a card: click it, then Give back",
                    trade: "Choose a card to trade: click it, then Trade",
                    claim: "A quick clear: select the cards and Claim, or Pass to decline", over: "Your cards" };
  $("prompt").textContent = prompts[view.table.prompt] || "Your cards";
  if (pokerPlay()) {
    $("prompt").textContent = view.table.claim
      ? `You claimed ${view.table.claim.words} (picked: ${view.table.claim.picked.join(" ") || "none yet"}): select the cards still to pick, then Pick`
      : "Your cards: select a combination, then Play (or choose a claim below)";
  }
  const hand = $("my-hand");
  hand.innerHTML = "";
  view.hand.forEach((card, i) => {
    const node = cardNode(card);
    node.addEventListener("click", () => {
      const k = play.selected.indexOf(i);
      if (k >= 0) play.selected.splice(k, 1); else play.selected.push(i);
      play.wantClaim = null;
      refreshButtons();
      previewSelection();
    });
    hand.appendChild(node);
  });
  const moves = $("moves");
  moves.innerHTML = "";
  const moveButton = (m, text) => {
    const b = el("button", { text, title: m.words, class: "move", "data-action": String(m.id), type: "button" });
    b.addEventListener("click", () => {
      if (m.id === 0) return sendMove({ action: 0 });
      play.selected = [];
      const used = new Set();
      for (const name of m.cards) {
        const i = view.hand.findIndex((c, j) => c.name === name && !used.has(j));
        if (i >= 0) { used.add(i); play.selected.push(i); }
      }
      play.wantClaim = m.claim ? m.id : null;
      refreshButtons();
      previewSelection();
    });
    return b;
  };
  if (view.your_turn && pokerPlay() && view.legal.some((m) => m.claim)) {
    // poker: the legal claims by kind, one row each (a click selects an example of its cards)
    const groups = new Map();
    for (const m of view.legal) {
      if (!m.claim) continue;
      if (!groups.has(m.group)) groups.set(m.group, []);
      groups.get(m.group).push(m);
    }
    moves.classList.add("grouped");
    for (const [group, ms] of groups) {
      const row = el("div", { class: "move-group", "data-group": group });
      row.appendChild(el("span", { class: "group-name", text: `${group}: ` }));
      for (const m of ms) row.appendChild(moveButton(m, m.label));
      moves.appendChild(row);
    }
  } else if (view.your_turn) {
    moves.classList.remove("grouped");
    moves.appendChild(el("span", { text: "legal: " }));
    for (const m of view.legal) moves.appendChild(moveButton(m, m.words));
  }
  const log = $("log");
  log.innerHTML = "";
  for (const line of view.log) log.appendChild(el("li", { text: line }));
  log.scrollTop = log.scrollHeight;
  refreshButtons();
}

async function sendMove(body) {
  if (!play.view || play.sending) return;   // one move at a time: a double click sends it once
  play.sending = true;
  try {
    // the move answers this decision: the server refuses it if it was already answered (another tab, a stale page)
    const view = await api("/api/game/action", { method: "POST", json: Object.assign({ decision: play.view.decision }, body) });
    showError("");
    drawGame(view);
  } catch (e) {
    showError(e.message);
    if (BUSY.includes(e.status)) pollGame(300);   // the game moved on, or is busy: draw it as it is now
  } finally {
    play.sending = false;
  }
}

async function downloadRecords() {
  try {
    const response = await fetch("/api/game/records", { headers: { "X-Game-Token": localStorage.getItem(TOKEN_KEY) || "" } });
    if (!response.ok) throw new Error((await response.json()).error);
    const blob = await response.blob();
    const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
    const a = el("a", { href: URL.createObjectURL(blob), download: name ? name[1] : "president.jsonl" });
    document.body.appendChild(a);
    a.click();
    a.remove();
  } catch (e) { showError(e.message); }
}

async function resumeGame() {
  if (!localStorage.getItem(TOKEN_KEY)) return false;
  try {
    drawGame(await api("/api/game"));
    return true;
  } catch (e) {
    if (e.status === 404) localStorage.removeItem(TOKEN_KEY);
    return false;
  }
}

// ------------------------------------------------------------------ start
async function main() {
  window.addEventListener("hashchange", route);
  window.addEventListener("resize", () => { refitPlay(); if (watch.frames.length) drawFrame(); });
  meta = await api("/api/meta");
  for (const p of meta.presets) $("preset").appendChild(el("option", { value: p.name, text: `${p.name} (${p.from})` }));
  const setPlayers = () => {
    const p = meta.presets.find((x) => x.name === $("preset").value);
    $("players").value = p.players;
    drawOpponentChoices();
  };
  $("preset").addEventListener("change", setPlayers);
  $("players").addEventListener("change", drawOpponentChoices);
  $("seat").addEventListener("change", drawOpponentChoices);
  setPlayers();
  $("new-game").addEventListener("submit", startGame);
  $("play-btn").addEventListener("click", () => {
    if (pokerPlay()) {
      const claim = chosenClaim();
      if (claim) sendMove(play.view.table.claim ? { cards: selectedNames() } : { cards: selectedNames(), claim: claim.id });
      return;
    }
    const m = matchingMove();
    if (m) sendMove({ action: m.id });
  });
  $("claim-choice").addEventListener("change", () => { play.wantClaim = Number($("claim-choice").value); refreshButtons(); });
  $("pass-btn").addEventListener("click", () => sendMove({ action: 0 }));
  $("clear-btn").addEventListener("click", () => { play.selected = []; play.preview = null; play.wantClaim = null; refreshButtons(); });
  $("download-btn").addEventListener("click", downloadRecords);
  $("first").addEventListener("click", () => moveTo(0));
  $("prev").addEventListener("click", () => moveTo(watch.step - 1));
  $("next").addEventListener("click", () => moveTo(watch.step + 1));
  $("last").addEventListener("click", () => moveTo(watch.frames.length - 1));
  $("record-set").addEventListener("change", () => { if ($("record-set").value) openSet($("record-set").value).catch((e) => showError(e.message)); });
  $("records-file").addEventListener("change", () => {
    const file = $("records-file").files[0];
    if (file) uploadRecords(file).catch((e) => showError(e.message));
  });
  $("viewer").addEventListener("change", () => { if (watch.index !== null) openHand(watch.index).catch((e) => showError(e.message)); });
  document.addEventListener("keydown", (e) => {
    if ($("page-watch").hidden || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") moveTo(watch.step + 1);
    if (e.key === "ArrowLeft") moveTo(watch.step - 1);
  });
  restoreForm();
  const resumed = await resumeGame();
  $("settings").open = !resumed || play.view.over;   // folded away during a game
  if (!pageOfHash()) history.replaceState(null, "", resumed ? "#play" : "#watch");
  route();
  await loadSets();
  document.body.dataset.ready = "yes";
}

main().catch((e) => showError(e.message));
