// Civ Lite: Ancients — browser client (plain ES module, no build step, works offline).
// Everything shown comes from the server's messages for this seat: its view and its redacted log.

const PROTOCOL = 1;
const ICONS = ["⚐", "♔", "△", "✎", "⚔", "⌂", "☄", "✿"]; // C L W A M B D X
const $app = document.getElementById("app");
const $status = document.getElementById("status");

let META = null;            // /api/meta: cards, suits, rule sets
const SUIT = new Map();     // card name -> suit index

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const suitName = (i) => META.suits[i].name;
const newId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`);

function cardHtml(name, opts = {}) {
  const s = SUIT.get(name) ?? 0;
  const cls = ["card", `s${s}`, opts.pick ? "pick" : "", opts.sel ? "sel" : "", opts.mini ? "mini" : ""].join(" ");
  const data = opts.data ? ` ${opts.data}="${esc(name)}"` : "";
  const kb = opts.pick ? ` role="button" tabindex="0"` : "";
  return `<span class="${cls}" title="${esc(suitName(s))}"${data}${kb}><i>${ICONS[s]}</i><span>${esc(name)}</span></span>`;
}

function bySuit(names) {
  const groups = new Map();
  for (const n of names) {
    const s = SUIT.get(n) ?? 0;
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s).push(n);
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]);
}

function groupedHtml(names, opts = {}) {
  if (!names.length) return `<span class="muted">none</span>`;
  return bySuit(names).map(([s, cards]) =>
    `<span class="suitgroup s${s}"><span class="label">${ICONS[s]} ${esc(suitName(s))} ×${cards.length}</span>` +
    cards.map((c) => cardHtml(c, { ...opts, sel: opts.selected && opts.selected.has(c) })).join("") + `</span>`).join("");
}

function setStatus(text, bad = false) {
  $status.textContent = text;
  $status.classList.toggle("bad", bad);
}

async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.detail ? (typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)) : `HTTP ${r.status}`);
  return data;
}

function copy(text, btn) {
  const done = () => { if (btn) { btn.textContent = "Copied"; setTimeout(() => (btn.textContent = "Copy"), 1200); } };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else fallbackCopy(text, done);
}
function fallbackCopy(text, done) {
  const ta = document.createElement("textarea");
  ta.value = text; document.body.appendChild(ta); ta.select();
  try { document.execCommand("copy"); } catch (e) { /* the link stays visible to copy by hand */ }
  ta.remove(); done();
}

// ---------------------------------------------------------------- lobby
function lobby() {
  document.title = "Civ Lite: Ancients — lobby";
  setStatus("lobby");
  const rs = META.rulesets;
  $app.innerHTML = `
  <div class="lobby">
    <section class="panel" data-testid="create">
      <h2>New table</h2>
      <div class="row"><label>Name <input id="tname" placeholder="Friday game" maxlength="80"></label></div>
      <div class="row" style="margin-top:.4em">
        <label>Seats <select id="nseats">${[2, 3, 4, 5, 6, 7, 8].map((n) => `<option ${n === 2 ? "selected" : ""}>${n}</option>`).join("")}</select></label>
        <label>Rules <select id="rules">${Object.entries(rs).map(([k, r]) => `<option value="${esc(k)}">${esc(k)} (first to ${r.victory_ct} CT)</option>`).join("")}</select></label>
      </div>
      <div class="row" style="margin-top:.4em">
        <label>Victory target <input id="victory" type="number" min="1" max="200" style="width:5em" value="${rs.default.victory_ct}"> CT</label>
        <label>Turn clock <select id="clock"><option value="">none</option><option value="30">30 s</option><option value="60">1 min</option><option value="120">2 min</option><option value="300">5 min</option></select></label>
      </div>
      <div id="seats" style="margin-top:.5em"></div>
      <div class="row" style="margin-top:.6em"><button class="primary big" id="create" data-testid="create-table">Create table</button><span id="cerr" class="error"></span></div>
    </section>
    <section class="panel" id="created" data-testid="created" hidden></section>
    <section class="panel" id="mine" data-testid="my-tables" hidden></section>
    <section class="panel">
      <h2>Open tables</h2>
      <ul class="tablelist" id="open" data-testid="open-tables"><li class="muted">loading…</li></ul>
    </section>
  </div>`;
  const seatsDiv = document.getElementById("seats");
  const seatChoice = (i) => `
    <div class="seatrow" data-seat="${i}"><b>Seat ${i + 1}</b>
      <select class="kind" data-testid="seat-kind-${i}">
        <option value="human">Human</option>${META.bots.map((b) => `<option value="bot:${b}">Bot: ${b}</option>`).join("")}
      </select>
      <input class="sname" placeholder="${i === 0 ? "your name" : "name (optional)"}" maxlength="40">
    </div>`;
  const drawSeats = () => {
    const n = +document.getElementById("nseats").value;
    const old = [...seatsDiv.querySelectorAll(".seatrow")].map((r) => [r.querySelector(".kind").value, r.querySelector(".sname").value]);
    seatsDiv.innerHTML = Array.from({ length: n }, (_, i) => seatChoice(i)).join("");
    seatsDiv.querySelectorAll(".seatrow").forEach((r, i) => {
      if (old[i]) { r.querySelector(".kind").value = old[i][0]; r.querySelector(".sname").value = old[i][1]; }
      else if (i > 0) r.querySelector(".kind").value = "bot:random";
    });
  };
  document.getElementById("nseats").onchange = drawSeats;
  document.getElementById("rules").onchange = (e) => { document.getElementById("victory").value = rs[e.target.value].victory_ct; };
  drawSeats();
  document.getElementById("create").onclick = async () => {
    const seats = [...seatsDiv.querySelectorAll(".seatrow")].map((r) => {
      const k = r.querySelector(".kind").value;
      const name = r.querySelector(".sname").value.trim() || null;
      return k === "human" ? { kind: "human", name } : { kind: "bot", bot: k.slice(4), name };
    });
    const clock = document.getElementById("clock").value;
    const body = {
      name: document.getElementById("tname").value.trim(), seats,
      rules: document.getElementById("rules").value,
      victory_ct: +document.getElementById("victory").value || null,
      clock: clock ? +clock : null,
    };
    try {
      const t = await api("/api/tables", body);
      showCreated(t);
      refreshOpen();
    } catch (e) { document.getElementById("cerr").textContent = e.message; }
  };
  const mine = mySeats();
  if (mine.length) {
    const box = document.getElementById("mine");
    box.hidden = false;
    box.innerHTML = `<h2>Your seats</h2><ul class="tablelist">${mine.map((x) => `<li><span><b>${esc(x.name)}</b>
      <span class="muted">seat ${x.seat + 1}</span></span><a href="/t/${esc(x.table)}#k=${esc(x.token)}">resume</a></li>`).join("")}</ul>`;
  }
  refreshOpen();
  const timer = setInterval(() => { if (!document.getElementById("open")) clearInterval(timer); else refreshOpen(); }, 5000);
}

function showCreated(t) {
  const box = document.getElementById("created");
  const abs = (p) => location.origin + p;
  const links = t.seats.map((s) => s.invite ? `
    <div class="link"><b>Seat ${s.seat + 1}: ${esc(s.name)}</b>
      <div class="row"><input readonly value="${esc(abs(s.invite))}" data-testid="invite-${s.seat}">
      <button class="cp">Copy</button> <a href="${esc(s.invite)}" data-testid="play-${s.seat}">play this seat</a></div></div>` :
    `<div class="link muted">Seat ${s.seat + 1}: ${esc(s.name)} (bot)</div>`).join("");
  box.hidden = false;
  box.innerHTML = `<h2>Table “${esc(t.name)}” is ready</h2>
    <p class="muted">Send each player their own link: it holds a secret seat token. Keep one for yourself.</p>
    <div class="links">${links}
      <div class="link"><b>Spectators</b><div class="row"><input readonly value="${esc(abs(t.spectate))}" data-testid="spectate-link"><button class="cp">Copy</button></div></div>
    </div>`;
  box.querySelectorAll("button.cp").forEach((b) => (b.onclick = () => copy(b.previousElementSibling.value, b)));
}

async function refreshOpen() {
  const ul = document.getElementById("open");
  if (!ul) return;
  try {
    const list = await api("/api/tables");
    ul.innerHTML = list.length ? list.map((t) => `<li><span><b>${esc(t.name)}</b> <span class="muted">${t.seats.length} seats · ${esc(t.rules.name)} to ${t.rules.victory_ct} CT${t.clock ? ` · ${t.clock}s clock` : ""} · turn ${t.turn}</span><br>
      <span class="muted">${t.seats.map((s) => `${esc(s.name)}${s.kind === "bot" ? " (bot)" : s.connected ? " ●" : " ○"}`).join(", ")}</span></span>
      <a href="/t/${esc(t.id)}">watch</a></li>`).join("") : `<li class="muted">no open tables yet</li>`;
  } catch (e) { ul.innerHTML = `<li class="error">${esc(e.message)}</li>`; }
}

// seats this browser holds, so a closed page can be found again from the lobby
function mySeats() {
  try { return JSON.parse(localStorage.getItem("civlite.seats") || "[]"); } catch (e) { return []; }
}
function rememberSeat(table, token, seat, name) {
  const list = mySeats().filter((x) => x.table !== table);
  list.unshift({ table, token, seat, name, at: Date.now() });
  localStorage.setItem("civlite.seats", JSON.stringify(list.slice(0, 20)));
}

// ---------------------------------------------------------------- table
class Table {
  constructor(id, token) {
    this.id = id; this.token = token;
    this.seat = null; this.table = null; this.state = null; this.seq = 0;
    this.log = []; this.notices = []; this.outbox = new Map(); // action id -> message (until acked)
    this.ui = { ability: null, selected: new Set(), meldExtra: null, forSeq: -1, showDiscard: false };
    this.error = ""; this.ws = null; this.backoff = 300; this.clock = null; this.closed = false;
    this.connect();
    this.tick = setInterval(() => this.renderClock(), 500);
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    setStatus("connecting…");
    ws.onopen = () => {
      this.backoff = 300;
      ws.send(JSON.stringify({ v: PROTOCOL, type: "hello", table: this.id, token: this.token || null }));
    };
    ws.onmessage = (ev) => this.onMessage(JSON.parse(ev.data));
    ws.onclose = () => {
      if (this.closed) return;
      setStatus("connection lost, reconnecting…", true);
      setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 5000);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  act(action) {
    const id = newId();
    const msg = { v: PROTOCOL, type: "action", id, action };
    this.outbox.set(id, msg);
    this.error = "";
    this.send(msg);
    this.busy = true;
    this.render();
  }

  onMessage(m) {
    switch (m.type) {
      case "welcome":
        this.seat = m.seat; this.table = m.table; this.state = m.state; this.seq = m.seq;
        if (m.seat !== null && this.token) rememberSeat(this.id, this.token, m.seat, m.table.name);
        this.log = m.log; this.clock = m.clock;
        document.body.dataset.seat = m.seat === null ? "spectator" : m.seat;
        setStatus(m.seat === null ? "watching" : `seat ${m.seat + 1} · connected`);
        for (const msg of this.outbox.values()) this.send(msg); // resend what was never acknowledged
        this.busy = this.outbox.size > 0;
        break;
      case "update":
        if (m.seq <= this.seq) return;
        this.state = m.state; this.seq = m.seq; this.clock = m.clock;
        this.log.push(...m.events);
        if (this.log.length > 600) this.log.splice(0, this.log.length - 600);
        if (this.table) this.table.turn = m.state.turn;
        break;
      case "ack":
        this.outbox.delete(m.id);
        this.busy = this.outbox.size > 0;
        return;
      case "error":
        if (m.id) this.outbox.delete(m.id);
        this.busy = this.outbox.size > 0;
        this.error = m.message;
        if (m.code === "bad_token" || m.code === "no_table") {
          this.closed = true; this.ws.close(); setStatus("cannot join", true);
          $app.innerHTML = `<section class="panel" data-testid="join-error"><h2>Cannot join this table</h2>
            <p class="error">${esc(m.message)}</p><p><a href="/">Back to the lobby</a></p></section>`;
          return;
        }
        break;
      case "presence":
        if (this.table) this.table.seats.forEach((s, i) => (s.connected = s.kind === "bot" || m.connected[i]));
        break;
      case "notice":
        this.notices.push(m.text);
        if (this.notices.length > 3) this.notices.shift();
        break;
      case "rematch":
        if (this.table) this.table.rematch = m.table;
        if (this.wantRematch) { this.wantRematch = false; this.goRematch(); return; }
        break;
      default: return;
    }
    this.render();
  }

  goRematch() {
    const id = this.table.rematch;
    if (!id) return;
    this.closed = true; this.ws.close(); clearInterval(this.tick);
    if (this.token) localStorage.setItem(`civlite.token.${id}`, this.token);
    history.pushState({}, "", `/t/${id}${this.token ? `#k=${this.token}` : ""}`);
    route();
  }

  name(seat) { return this.table?.seats[seat]?.name ?? `seat ${seat + 1}`; }
  hand() { return this.state.hand || []; }
  countSuit(s) { return this.hand().filter((c) => SUIT.get(c) === s).length; }

  renderClock() {
    const el = document.getElementById("clock");
    if (!el) return;
    if (!this.clock || this.state?.over) { el.textContent = ""; return; }
    const left = Math.max(0, Math.round((this.clock.deadline - Date.now()) / 1000));
    el.textContent = `◷ ${this.name(this.clock.seat)}: ${left}s`;
    el.classList.toggle("low", left <= 10);
  }

  render() {
    if (!this.state || !this.table) return;
    const st = this.state, rules = this.table.rules, me = this.seat;
    if (this.ui.forSeq !== this.seq) { this.ui = { ability: null, selected: new Set(), meldExtra: null, forSeq: this.seq }; }
    const pending = st.pending;
    const mine = pending && me !== null && pending.player === me;
    document.title = `${mine ? "▶ Your move · " : ""}Civ Lite — ${this.table.name}`;
    document.body.dataset.decision = mine ? pending.decision : "";
    document.body.dataset.over = st.over ? "1" : "";
    document.body.dataset.seq = this.seq;
    const cts = Array.from({ length: this.table.seats.length }, (_, i) => (i === me ? st.ct : st.players.find((p) => p.seat === i)?.ct ?? 0));
    const track = cts.map((ct, i) => `
      <div class="trackrow ${i === me ? "me" : ""}" data-testid="track-${i}">
        <span class="who ${pending && pending.player === i ? "tomove" : ""}">${pending && pending.player === i ? "▶ " : ""}${esc(this.name(i))}</span>
        <div class="bar" title="${ct} of ${rules.victory_ct} CT"><div style="width:${Math.min(100, (100 * ct) / rules.victory_ct)}%"></div></div>
        <b>${ct}</b></div>`).join("");
    const opps = st.players.map((p) => {
      const s = this.table.seats[p.seat];
      return `<div class="opp ${st.active === p.seat ? "active" : ""}" data-testid="opp-${p.seat}">
        <div><b>${esc(s.name)}</b> <span class="muted">${s.kind === "bot" ? `bot (${esc(s.bot)})` : s.connected ? "online" : "offline"}</span></div>
        <div>CT <b>${p.ct}</b> · hand <b data-testid="hand-size-${p.seat}">${p.hand_size}</b> <span class="backs">${"▮".repeat(Math.min(p.hand_size, 20))}</span></div>
        ${p.known.length ? `<div class="muted">known: ${p.known.map((c) => cardHtml(c, { mini: true })).join("")}</div>` : ""}
      </div>`;
    }).join("");
    const discardShown = this.ui.showDiscard ? st.discard : st.discard.slice(-10);
    const piles = `
      <div class="piles">
        <div><div class="muted">Deck</div><div class="deck" data-testid="deck-size">${st.deck_size}</div></div>
        <div style="flex:1"><div class="muted">Discard pile (${st.discard.length}, face up)
          ${st.discard.length > 10 ? `<a href="#" id="toggledisc">${this.ui.showDiscard ? "show last 10" : "show all"}</a>` : ""}</div>
          <div data-testid="discard">${this.ui.showDiscard ? groupedHtml(discardShown, { mini: true }) : discardShown.map((c) => cardHtml(c, { mini: true })).join("") || '<span class="muted">empty</span>'}</div></div>
      </div>`;
    const decision = this.decisionHtml(st, mine);
    // hand cards are picked for a discard, and in the action and meld decisions to choose which
    // cards pay or meld (cards of one suit play alike, R1.2, but not what opponents know of them)
    const handPick = mine && (pending.decision.endsWith("_discard") || pending.decision === "action" || pending.decision === "meld");
    const hand = me === null ? "" : `
      <section class="panel" data-testid="hand"><h3>Your hand (${this.hand().length})${st.ct !== null ? ` · ${st.ct} CT` : ""}</h3>
        ${groupedHtml(this.hand(), { pick: handPick, data: "data-hand", selected: this.ui.selected })}
      </section>`;
    const logHtml = this.log.slice(-200).reverse().map((e) => {
      const m = /^(R[\d.]+)\s(.*)$/.exec(e.text || "");
      return `<div class="${e.kind === "turn" ? "turn" : ""}">${m ? `<span class="rule">${esc(m[1])}</span> ${esc(this.named(m[2]))}` : esc(this.named(e.text || e.kind))}</div>`;
    }).join("");
    const over = st.over ? this.overHtml(st) : "";
    $app.innerHTML = `
      <div class="row" style="justify-content:space-between">
        <h2 style="margin:.2em 0">${esc(this.table.name)} <span class="muted">turn ${st.turn} · ${esc(rules.name)}, first to ${rules.victory_ct} CT</span></h2>
        <span id="clock" class="clock" data-testid="clock"></span>
      </div>
      ${this.notices.map((n) => `<div class="notice" data-testid="notice">${esc(this.named(n))}</div>`).join("")}
      <div class="tablegrid">
        <div>
          <section class="panel"><h3>CT race to ${rules.victory_ct}</h3><div class="track">${track}</div></section>
          ${decision}
          ${hand}
          <section class="panel"><h3>${me === null ? "Players" : "Opponents"}</h3><div class="opps">${opps}</div></section>
          <section class="panel">${piles}</section>
        </div>
        <aside><section class="panel"><h3>Log <span class="muted">(rule cited first)</span></h3><div class="log" data-testid="log">${logHtml}</div></section>
          <p class="muted">${me === null ? "You are watching: only public facts are shown." : `You are ${esc(this.name(me))} (seat ${me + 1}).`} <a href="/">lobby</a></p></aside>
      </div>${over}`;
    this.bind(st, mine);
    this.renderClock();
  }

  named(text) { return text.replace(/seat (\d+)/g, (_, d) => this.name(+d)); }

  decisionHtml(st, mine) {
    const p = st.pending;
    if (!p) return "";
    const err = this.error ? `<div class="error" data-testid="error">${esc(this.error)}</div>` : "";
    if (!mine) {
      const who = this.table.seats[p.player];
      return `<section class="panel decision wait" data-testid="waiting"><b>Waiting for ${esc(who.name)}</b>
        <span class="muted">(${esc(p.decision.replace(/_/g, " "))}${who.kind === "bot" ? `, bot ${esc(who.bot)}` : ""})</span>${err}</section>`;
    }
    const rules = this.table.rules;
    const kind = p.decision;
    let body = "";
    if (kind === "action") {
      const abilities = rules.abilities.map((a) => {
        const ok = this.countSuit(a.suit) >= a.cards;
        return `<button class="ability s${a.suit} ${ok ? "ok" : ""} ${this.ui.ability === a.name ? "chosen" : ""}" ${ok ? "" : "disabled"} data-ability="${esc(a.name)}">
          <b>${ICONS[a.suit]} ${esc(a.name)}</b> <span class="muted">${a.tier} · pay ${a.cards} ${esc(suitName(a.suit))} · ${esc(a.rule)}</span>
          <small>${esc(a.text)}</small></button>`;
      }).join("");
      let targets = "";
      const chosen = rules.abilities.find((a) => a.name === this.ui.ability);
      if (chosen && chosen.targets) {
        targets = `<div class="targets"><b>${esc(chosen.name)}: choose an opponent</b><div class="row">` +
          st.players.map((o) => `<button class="primary" data-target="${o.seat}">${esc(this.name(o.seat))} <span>(${o.hand_size} cards, ${o.ct} CT)</span></button>`).join("") +
          `<button data-cancel>cancel</button></div></div>`;
      }
      body = `<h3>Your action: use one ability, or pass</h3>${targets}<div class="abilities">${abilities}</div>
        <div class="row" style="margin-top:.5em"><button data-choice="pass" class="big">Pass (no ability)</button></div>
        ${this.choiceHint()}`;
    } else if (kind === "meld") {
      const need = rules.meld_suits;
      const slots = need.map((s) => `<span class="slot s${s} ${this.countSuit(s) ? "lit" : ""}">${ICONS[s]}<br><small>${esc(suitName(s))}</small></span>`).join("");
      const extras = rules.meld_one_of.filter((s) => this.countSuit(s) > 0);
      const extra = this.ui.meldExtra ?? extras[0];
      const ready = need.every((s) => this.countSuit(s) > 0) && extras.length > 0;
      const extraSlot = `<span class="slot ${ready || extras.length ? "lit" : ""} s${extra ?? rules.meld_one_of[0]}">${rules.meld_one_of.map((s) => ICONS[s]).join("/")}<br><small>${rules.meld_one_of.map(suitName).join(" or ")}</small></span>`;
      const pickExtra = extras.length > 1 ? `<div class="row">7th card: ${extras.map((s) => `<label><input type="radio" name="mx" value="${s}" ${s === extra ? "checked" : ""}> ${esc(suitName(s))}</label>`).join(" ")}</div>` : "";
      body = `<h3>Meld: 7 cards, one of each major suit and a ${rules.meld_one_of.map(suitName).join(" or ")} (+${rules.meld_ct} CT, then draw ${rules.meld_draw})</h3>
        <div class="meld" data-testid="meld-builder">${slots}${extraSlot}</div>${pickExtra}
        <div class="row">${ready ? `<span class="meldready">A meld is possible!</span>` : `<span class="muted">No meld possible now.</span>`}
          <button class="primary big" data-choice="meld" ${ready ? "" : "disabled"}>Play meld</button>
          <button data-choice="pass" class="big">Pass (no meld)</button></div>
        ${ready ? this.choiceHint() : ""}`;
    } else if (kind === "vision" || kind === "foundations") {
      const from = kind === "vision" ? (st.searching || []) : st.discard;
      body = `<h3>${esc(p.ability || kind)}: take 1 card from ${kind === "vision" ? "the deck" : "the discard pile"}</h3>
        <div data-testid="take-choices">${groupedHtml([...new Set(from)], { pick: true, data: "data-take" })}</div>`;
    } else if (kind.endsWith("_discard")) {
      const n = p.count || 1;
      const sel = this.ui.selected.size;
      body = `<h3>${esc(p.ability || "Fall")}: choose ${n} card${n === 1 ? "" : "s"} to discard</h3>
        <p class="muted">Tap cards in your hand below to select them (${sel} of ${n} chosen).</p>
        <div class="row"><button class="primary big" data-choice="discard" ${sel === n ? "" : "disabled"}>Discard ${n}</button>
        <button data-clear>clear</button></div>`;
    } else {
      body = `<h3>${esc(kind)}</h3>`;
    }
    return `<section class="panel decision" data-testid="decision" data-kind="${esc(kind)}" data-count="${p.count || 0}">${body}${err}${this.busy ? `<div class="muted">sending…</div>` : ""}</section>`;
  }

  // which cards pay or meld: the selected ones first, then the hand's order
  firstOfSuit(suit, n) {
    const mine = this.hand().filter((c) => SUIT.get(c) === suit);
    return [...mine.filter((c) => this.ui.selected.has(c)), ...mine.filter((c) => !this.ui.selected.has(c))].slice(0, n);
  }

  choiceHint() {
    const sel = [...this.ui.selected];
    return `<p class="muted" data-testid="pay-hint">${sel.length
      ? `Selected to pay or meld first: ${sel.map((c) => esc(c)).join(", ")} <button data-clear>clear</button>`
      : "Tap cards in your hand to choose which ones pay or meld (otherwise the first of each suit)."}</p>`;
  }

  overHtml(st) {
    const w = st.winner;
    const text = w !== null ? (w === this.seat ? "You win!" : `${esc(this.name(w))} wins!`) : `A draw between ${(st.drawn || []).map((s) => esc(this.name(s))).join(", ")}`;
    const canRematch = this.seat !== null;
    return `<div class="overlay" data-testid="winner"><div class="panel">
      <h2>${text}</h2><p>${w !== null ? `${esc(this.name(w))} reached ${this.table.rules.victory_ct} CT on turn ${st.turn}.` : ""}</p>
      <div class="row" style="justify-content:center">
        ${canRematch ? `<button class="primary big" id="rematch" data-testid="rematch">Rematch</button>` : ""}
        ${this.table.rematch ? `<button id="gorematch">Go to the rematch</button>` : ""}
        <button id="closeover">Look at the table</button> <a href="/">Lobby</a></div></div></div>`;
  }

  bind(st, mine) {
    const q = (sel) => $app.querySelectorAll(sel);
    q("#toggledisc").forEach((a) => (a.onclick = (e) => { e.preventDefault(); this.ui.showDiscard = !this.ui.showDiscard; this.render(); }));
    const rematch = document.getElementById("rematch");
    if (rematch) rematch.onclick = () => { if (this.table.rematch) this.goRematch(); else { this.wantRematch = true; this.send({ v: PROTOCOL, type: "rematch" }); } };
    const go = document.getElementById("gorematch");
    if (go) go.onclick = () => this.goRematch();
    const close = document.getElementById("closeover");
    if (close) close.onclick = () => document.querySelector(".overlay")?.remove();
    if (!mine || this.busy) return;
    const p = st.pending, rules = this.table.rules;
    const pay = (a) => this.firstOfSuit(a.suit, a.cards);
    q("[data-ability]").forEach((b) => (b.onclick = () => {
      const a = rules.abilities.find((x) => x.name === b.dataset.ability);
      if (a.targets) { this.ui.ability = a.name; this.render(); return; }
      this.act({ do: a.tier, cards: pay(a) });
    }));
    q("[data-target]").forEach((b) => (b.onclick = () => {
      const a = rules.abilities.find((x) => x.name === this.ui.ability);
      this.act({ do: a.tier, cards: pay(a), target: +b.dataset.target });
    }));
    q("[data-cancel]").forEach((b) => (b.onclick = () => { this.ui.ability = null; this.render(); }));
    q("[data-choice=pass]").forEach((b) => (b.onclick = () => this.act({ do: "pass" })));
    q("input[name=mx]").forEach((r) => (r.onchange = () => { this.ui.meldExtra = +r.value; this.render(); }));
    q("[data-choice=meld]").forEach((b) => (b.onclick = () => {
      const extras = rules.meld_one_of.filter((s) => this.countSuit(s) > 0);
      const extra = this.ui.meldExtra ?? extras[0];
      const cards = [...rules.meld_suits, extra].map((s) => this.firstOfSuit(s, 1)[0]);
      this.act({ do: "meld", cards });
    }));
    q("[data-take]").forEach((c) => (c.onclick = () => this.act({ do: "take", card: c.dataset.take })));
    const n = p.decision.endsWith("_discard") ? (p.count || 1) : Infinity;
    if (!(n < Infinity || p.decision === "action" || p.decision === "meld")) return;
    q("[data-hand]").forEach((c) => (c.onclick = () => {
      const name = c.dataset.hand;
      if (this.ui.selected.has(name)) this.ui.selected.delete(name);
      else if (this.ui.selected.size < n) this.ui.selected.add(name);
      this.render();
    }));
    q("[data-clear]").forEach((b) => (b.onclick = () => { this.ui.selected.clear(); this.render(); }));
    q("[data-choice=discard]").forEach((b) => (b.onclick = () => this.act({ do: "discard", cards: [...this.ui.selected] })));
  }
}

// ---------------------------------------------------------------- routing
let current = null;
function route() {
  if (current) { current.closed = true; current.ws?.close(); clearInterval(current.tick); current = null; }
  const m = /^\/t\/([\w-]+)/.exec(location.pathname);
  if (!m) { document.body.dataset.seat = ""; lobby(); return; }
  const id = m[1];
  const k = /k=([\w-]+)/.exec(location.hash);
  let token = k ? k[1] : null;
  if (token) localStorage.setItem(`civlite.token.${id}`, token);
  $app.innerHTML = `<p class="loading">Joining the table…</p>`;
  current = new Table(id, token);
}

window.addEventListener("popstate", route);
document.addEventListener("keydown", (e) => {  // Enter or Space picks a focused card
  if ((e.key === "Enter" || e.key === " ") && e.target.matches && e.target.matches(".card.pick")) {
    e.preventDefault();
    e.target.click();
  }
});
(async () => {
  try {
    META = await api("/api/meta");
  } catch (e) {
    $app.innerHTML = `<p class="error">Cannot reach the server: ${esc(e.message)}</p>`;
    return;
  }
  for (const c of META.cards) SUIT.set(c.name, c.suit);
  route();
})();
