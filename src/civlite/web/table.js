// The card table: one connection to a table (TableConn) and the components that draw it.
// What may be chosen comes from the engine's per-seat choices sent by the server (never
// re-derived here); the client only keeps what the player has picked so far.
import {
  html, Name, Card, Cards, Icon, ICONS, META, suitIndex, suitName, suitOf, clean, sentence, sentenceText, plural, list, api,
} from "./ui.js";
import { useRef, useLayoutEffect } from "./vendor/htm-preact.js";
import { ReviewButton, ReviewPanel, ReplayMark, HintButton } from "./review.js";
import { mutes, isMuted, adoptOld, loadMutes, toggleMute, hideSpectators, setHideSpectators } from "./mutes.js";

const PROTOCOL = 1;
const newId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`);
const AUTO_MELD_PASS = "civlite.autoMeldPass";
const KIND_WORDS = {
  action: "choosing an action", meld: "deciding on a meld", vision: "searching the deck (Vision)",
  foundations: "taking from the discard pile (Foundations)", culture_discard: "discarding (Culture)",
  wisdom_discard: "discarding (Wisdom)", setback_discard: "discarding (Setback)", fall_discard: "discarding down to the hand limit",
};
// the refusals of a concession or a vote (they carry no move id)
const LEAVE_ERRORS = new Set(["not_stalled", "not_playing", "spectator", "stale", "unavailable", "no_hello"]);
const PLAIN_ERRORS = {
  stale: "That move was already made (or is late): the table has moved on.",
  conflict: "Another move was made first: the table has been refreshed.",
  rate_limited: "Too many messages at once: wait a moment.",
};

export function autoMeldPass() { return localStorage.getItem(AUTO_MELD_PASS) !== "0"; }
// how the player is told it is their turn: the tab's title always; a sound and a notification
// (when the tab is hidden) only once turned on in Settings
const SOUND = "civlite.turnSound";
const NOTIFY = "civlite.turnNotify";
const on = (k) => localStorage.getItem(k) === "1";
let audio = null;

/** A short two-note chime (made on the page: no file to fetch). */
function chime() {
  try {
    audio = audio || new AudioContext();
    const t = audio.currentTime;
    [660, 880].forEach((f, i) => {
      const o = audio.createOscillator(); const g = audio.createGain();
      o.frequency.value = f; g.gain.setValueAtTime(0.0001, t + i * 0.16);
      g.gain.exponentialRampToValueAtTime(0.2, t + i * 0.16 + 0.02); g.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.16 + 0.15);
      o.connect(g).connect(audio.destination); o.start(t + i * 0.16); o.stop(t + i * 0.16 + 0.16);
    });
  } catch (e) { /* no sound on this device */ }
}

/** This browser's profile ({id, name, key}) or null. */
function myProfileHere() {
  try { const p = JSON.parse(localStorage.getItem("civlite.profile") || "null"); return p && p.key ? p : null; } catch (e) { return null; }
}
const myKey = () => myProfileHere()?.key || null;

const byHand = (a, b) => suitOf(a) - suitOf(b) || a.localeCompare(b);

// ---------------------------------------------------------------- the connection
export class TableConn {
  constructor(id, token, opts) {
    Object.assign(this, { id, token, opts });
    this.seat = null; this.table = null; this.state = null; this.seq = 0; this.choices = null; this.decision = null;
    this.log = []; this.notices = []; this.outbox = new Map(); this.final = null; this.clock = null;
    this.error = ""; this.fatal = ""; this.busy = false; this.closed = false; this.backoff = 300;
    this.ui = { dn: -1 }; this.flash = new Map(); this.lastMove = new Map(); this.delta = new Map();
    this.lost = null; this.newDiscard = new Set(); this.live = ""; this.replay = null; this.autoSent = -1;
    this.showDiscard = false;
    this.autoIds = new Set(); // automatic meld passes: another tab of this seat may have passed first
    this.chat = []; this.chatError = ""; this.chatText = "";
    loadMutes(adoptOld(id)).then(() => this.draw()); // the profile's mutes, if it has one
    this.wantReplay = !!opts.replay;
    this.connect();
    this.tick = setInterval(() => { if (this.clock && !this.state?.over) this.draw(); }, 500);
    this.onFocus = (e) => { if (e.target.closest && e.target.closest("#app")) this.lastFocus = e.target; };
    // a control that goes away or turns inert takes the focus with it: put it back in the page
    this.onBlur = () => setTimeout(() => this.keepFocus(), 0);
    document.addEventListener("focusin", this.onFocus);
    document.addEventListener("focusout", this.onBlur);
  }

  draw() { if (!this.closed) this.opts.draw(); }

  close() {
    this.closed = true; clearInterval(this.tick); this.ws?.close();
    document.removeEventListener("focusin", this.onFocus);
    document.removeEventListener("focusout", this.onBlur);
  }

  keepFocus() {
    if (this.closed || !this.lastFocus) return;
    const active = document.activeElement;
    if (active && active !== document.body) return;
    if (!document.hasFocus()) return; // the window itself lost focus: leave it
    const back = this.lastFocus.isConnected && !this.lastFocus.disabled ? this.lastFocus : null;
    const el = back || document.getElementById("decision-h") || document.getElementById("end-h") || document.getElementById("hand-h");
    if (el) el.focus();
  }

  /** After each drawing: keep keyboard focus in the page when the focused control went away. */
  afterDraw() {
    const want = this.focusNext;
    this.focusNext = null;
    if (want) { const el = document.querySelector(want); if (el) { el.focus(); this.maybeAutoPass(); return; } }
    this.keepFocus();
    this.maybeAutoPass();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    this.opts.setStatus("connecting…");
    ws.onopen = () => {
      this.backoff = 300;
      ws.helloToken = this.token || null; // the link this socket speaks for
      ws.send(JSON.stringify({ v: PROTOCOL, type: "hello", table: this.id, token: this.token || null }));
    };
    ws.onmessage = (ev) => this.onMessage(JSON.parse(ev.data), ws);
    ws.onclose = () => {
      if (this.closed || ws !== this.ws) return; // a socket already replaced by a newer one
      if (this.reissuing) { this.reconnectAfter = true; return; } // reconnects with the new link
      this.opts.setStatus("connection lost, reconnecting…", true);
      setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 5000);
    };
  }

  send(msg) { if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg)); }

  name(seat) { return clean(this.table?.seats[seat]?.name ?? `Seat ${seat + 1}`); }

  act(action, auto = false) {
    if (this.busy) return; // one move at a time: the next waits for the answer
    const id = newId();
    if (auto) this.autoIds.add(id);
    const msg = { v: PROTOCOL, type: "action", id, action, decision: this.decision };
    this.outbox.set(id, msg);
    this.error = "";
    this.busy = true;
    this.send(msg);
    this.draw();
  }

  say(text) { this.live = text; }

  setChoices(m) {
    this.choices = m.choices ?? null;
    const dn = m.decision_number ?? m.choices?.decision_number ?? null;
    if (dn !== this.decision) {
      this.decision = dn;
      this.ui = { dn, ability: null, cards: [], target: null, take: null, meld: [] };
    }
  }

  onMessage(m, ws = this.ws) {
    const me = () => this.seat;
    switch (m.type) {
      case "welcome": {
        const wasMine = this.state ? this.mine() : true; // a first welcome tells nothing: the player is looking
        const endedBefore = !!(this.table && this.table.ended);
        this.leaving = null; // a concession or vote in flight was answered, or lost with the old socket
        this.chat = m.chat || [];
        this.seat = m.seat; this.table = m.table; this.state = m.state; this.seq = m.seq;
        this.log = m.log; this.clock = m.clock; this.final = m.final ?? null;
        this.setChoices(m);
        if (m.seat !== null && this.token) this.opts.rememberSeat(this.id, this.token, m.seat, m.table.name);
        document.body.dataset.seat = m.seat === null ? "spectator" : m.seat;
        this.opts.setStatus(m.seat === null ? "watching" : `seat ${m.seat + 1} · connected`);
        if (m.missed_clock) {
          const text = `While you were away, your turn clock ran out ${m.missed_clock === 1 ? "once" : `${m.missed_clock} times`}: a move was made for you each time (marked “clock” in the log).`;
          this.notices.push(text);
          this.say(text);
        } else if (this.mine()) this.say(`Your turn: ${this.turnWords()}.`);
        if (this.mine() && !wasMine) this.tell();
        for (const msg of this.outbox.values()) this.send(msg); // resend what was never acknowledged
        this.busy = this.outbox.size > 0;
        if (this.wantReplay && m.state.over) { this.wantReplay = false; this.openReplay(m.seat); }
        if (m.table.ended && this.table && !endedBefore && this.state) { this.leaving = null; this.focusNext = "#ended-h"; }
        break;
      }
      case "update": {
        if (m.seq <= this.seq) return;
        const before = this.state;
        this.state = m.state; this.seq = m.seq; this.clock = m.clock; this.final = m.final ?? null;
        const wasMine = this.mine();
        const oldDn = this.decision;
        this.setChoices(m);
        this.log.push(...m.events);
        if (this.log.length > 600) this.log.splice(0, this.log.length - 600);
        this.table.turn = m.state.turn;
        this.noteChanges(before, m);
        if (m.state.over) {
          const w = m.state.winner;
          this.say(w === null ? "The game is over: a draw." : w === me() ? "The game is over: you win!" : `The game is over: ${this.name(w)} wins.`);
          this.focusNext = "#end-h";
        } else if (this.mine() && (!wasMine || oldDn !== this.decision)) {
          this.say(`${this.live ? `${this.live} ` : ""}Your turn: ${this.turnWords()}.`);
          if (!wasMine) this.tell();
        }
        // a move the clock made for this seat: the server's notice tells its player, once
        break;
      }
      case "ack":
        this.outbox.delete(m.id);
        this.busy = this.outbox.size > 0;
        return;
      case "error":
        if (m.id) this.outbox.delete(m.id);
        this.busy = this.outbox.size > 0;
        if (m.code && m.code.startsWith("chat_")) { this.chatError = m.message; break; }
        if (!m.id && this.leaving && LEAVE_ERRORS.has(m.code)) { // a refused concession or vote: said beside its button
          this.leaveError = m.message; this.leaving = null; this.say(m.message); break;
        }
        if (!m.id) this.wantRematch = false; // a refused rematch (its button comes back)
        if (m.code === "stale" && this.autoIds.has(m.id)) return; // an automatic pass made twice: nothing to tell
        if (m.code === "revoked" && (this.reissuing || (ws.helloToken && ws.helloToken !== this.token))) {
          // this page asked for the new link (the word may come before or after its answer): the
          // old socket ends and the page goes on with the new link
          if (!this.reissuing && ws === this.ws) ws.close();
          return;
        }
        // engine messages count seats from 0 ("seat 0's meld"): name the players instead
        this.error = PLAIN_ERRORS[m.code] || sentenceText(m.message, (x) => this.name(x), this.seat);
        this.say(this.error);
        if (m.code === "bad_token" || m.code === "no_table" || m.code === "revoked") {
          this.fatal = m.message; this.closed = true; this.ws.close(); this.opts.setStatus("cannot join", true);
          this.opts.draw();
          return;
        }
        break;
      case "presence":
        if (this.table) this.table.seats.forEach((s, i) => { s.connected = s.kind === "bot" || m.connected[i]; });
        if ("clock" in m) this.clock = m.clock;
        break;
      case "notice":
        if (m.kind === "left" || m.kind === "vote" || m.kind === "closed") { this.leaving = null; this.leaveError = ""; }
        this.notices.push(m.text);
        this.say(m.text);
        break;
      case "chat":
        if (m.line.seat !== null && m.line.seat === this.seat) this.chatToEnd = true; // my own line
        this.chat.push(m.line);
        if (this.chat.length > 200) this.chat.splice(0, this.chat.length - 200);
        break;
      case "rematch":
        if (this.table) this.table.rematch = m.table;
        if (this.wantRematch) { this.wantRematch = false; this.goRematch(); return; }
        break;
      default: return;
    }
    if (this.notices.length > 3) this.notices.splice(0, this.notices.length - 3);
    this.draw();
  }

  /** What others did, where it happened: a highlight on their seat, CT changes, new discards,
   *  a card taken from you; and the same in words for the live region. */
  noteChanges(before, m) {
    const me = this.seat;
    const words = [];
    const touched = new Set();
    for (const e of m.events) {
      if (e.kind === "turn" || e.kind === "shuffle") continue;
      const s = e.player;
      if (s !== undefined && s !== me) {
        touched.add(s);
        if (e.kind !== "draw" || e.ability) this.lastMove.set(s, { text: e.text, via: e.via });
      }
      if (e.target === me && me !== null && (e.kind === "steal_cards" || e.kind === "steal_ct")) {
        const lost = { by: s, ability: e.ability, cards: e.secret || [], count: e.count || 0, ct: e.kind === "steal_ct" ? e.amount || 0 : 0 };
        if (lost.ct || lost.count || lost.cards.length) this.lost = lost; // nothing taken: the log says so, no alarm
      }
      if (s !== me || e.target === me) words.push(sentenceText(e.text, (x) => this.name(x), me));
    }
    if (words.length) this.say(words.slice(-4).join(". "));
    const ctOf = (st, seat) => (seat === st.seat ? st.ct : st.players.find((p) => p.seat === seat)?.ct ?? 0);
    if (before) {
      for (let seat = 0; seat < this.table.seats.length; seat++) {
        const d = (ctOf(m.state, seat) ?? 0) - (ctOf(before, seat) ?? 0);
        if (d) { this.delta.set(seat, d); touched.add(seat); }
      }
      const old = new Map();
      for (const c of before.discard) old.set(c, true);
      this.newDiscard = new Set(m.state.discard.filter((c) => !old.has(c)));
    }
    for (const s of touched) this.flash.set(s, Date.now());
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { this.flash.clear(); this.delta.clear(); this.newDiscard.clear(); this.draw(); }, 2600);
  }

  /** This seat has a decision to make now (never while the table waits for its players). */
  mine() {
    return !!(this.choices && this.choices.kind && this.seat !== null && !this.state?.over && this.table?.status !== "waiting"
      && this.table?.status !== "closed");
  }

  /** It has just become this seat's turn: a chime and a notification, if the player turned them on. */
  tell() {
    if (on(SOUND)) chime();
    if (on(NOTIFY) && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        const n = new Notification("Civ Lite: your turn", { body: `${clean(this.table.name)}: ${this.turnWords()}.`, tag: `civlite-${this.id}` });
        n.onclick = () => { window.focus(); n.close(); };
      } catch (e) { /* a browser that shows notifications only from a service worker */ }
    }
  }

  sendChat(text) {
    const t = text.trim();
    if (!t) return;
    this.chatError = "";
    this.chatToEnd = true; // the sender sees the chat's end, their line coming in
    const msg = { v: PROTOCOL, type: "chat", text: t };
    if (this.seat === null) { // a spectator speaks under its profile's handle (its key proves it), or as "Spectator"
      const key = myKey();
      if (key) msg.profile = key;
    }
    this.send(msg);
  }

  /** Give up this seat: a bot plays on in it (with one seat left in play the game ends). */
  concede() { this.leaving = "concede"; this.leaveError = ""; this.send({ v: PROTOCOL, type: "concede" }); this.draw(); }

  /** Vote to end a game stalled by a player who is away (the server says when it is not stalled). */
  voteEnd() { this.leaving = "vote"; this.leaveError = ""; this.send({ v: PROTOCOL, type: "vote_end" }); this.draw(); }

  /** Mute or unmute ``seat`` (null: the spectators): see mutes.js. */
  toggleMute(seat) { return toggleMute(this.id, this.table.seats, seat, () => this.draw()); }

  turnWords() {
    const k = this.choices?.kind;
    if (k === "action") return "use one ability, or pass";
    if (k === "meld") return this.choices.meld?.possible ? "a meld is possible" : "no meld is possible: pass";
    if (k === "vision" || k === "foundations") return `take 1 card from ${this.choices.take?.source === "deck" ? "the deck" : "the discard pile"}`;
    if (this.choices?.discard) return `choose ${plural(this.choices.discard.count, "card")} to discard`;
    return "decide";
  }

  /** R9.1: the player may let the client pass a meld that is impossible (a setting, on by default). */
  maybeAutoPass() {
    const c = this.choices;
    if (!c || c.kind !== "meld" || c.meld?.possible || this.busy || !autoMeldPass() || this.autoSent === this.decision) return;
    if (this.replay) return;
    this.autoSent = this.decision;
    this.say("No meld is possible: passed automatically.");
    this.act({ do: "pass" }, true);
  }

  /** Replace this seat's invite link (the old one stops working, e.g. one shared by mistake). */
  async reissue() {
    if (!this.token || this.seat === null || this.reissuing) return;
    this.reissuing = true;
    try {
      const r = await api(`/api/tables/${this.id}/seats/${this.seat}/invite`, { token: this.token });
      const tok = r.invite.split("#k=")[1];
      this.token = tok;
      localStorage.setItem(`civlite.token.${this.id}`, tok);
      history.replaceState({}, "", `/t/${this.id}#k=${tok}`);
      this.opts.rememberSeat(this.id, tok, this.seat, this.table.name);
      this.newInvite = location.origin + r.invite;
      this.say("Your seat has a new invite link; the old one no longer works.");
    } catch (e) { this.error = e.message; }
    this.reissuing = false;
    if (this.reconnectAfter || this.ws?.readyState !== WebSocket.OPEN) {
      this.reconnectAfter = false;
      this.ws?.close();
      this.connect();
    }
    this.draw();
  }

  goRematch() {
    const id = this.table.rematch;
    if (!id) return;
    if (this.token) localStorage.setItem(`civlite.token.${id}`, this.token);
    history.pushState({}, "", `/t/${id}${this.token ? `#k=${this.token}` : ""}`);
    this.opts.route();
  }

  async openReplay(seat) {
    try {
      const q = seat === null || seat === undefined ? "" : `?seat=${seat}`;
      const data = await api(`/api/tables/${this.id}/replay${q}`);
      const keep = this.replay && this.replay.seat !== seat ? this.replay.step : data.steps.length - 1;
      this.replay = { data, seat: data.seat, step: Math.min(keep, data.steps.length - 1) };
      this.focusNext = "#replay-h";
    } catch (e) { this.error = e.message; }
    this.draw();
  }
}

// ---------------------------------------------------------------- the screen
export function TableScreen({ conn }) {
  if (conn.fatal) {
    return html`<section class="panel narrow" data-testid="join-error" aria-labelledby="je-h"><h2 id="je-h">Cannot join this table</h2>
      <p class="error">${conn.fatal}</p><p><a href="/">Back to the lobby</a></p></section>`;
  }
  if (!conn.state || !conn.table) return html`<p class="loading" role="status">Joining the table…</p>`;
  if (conn.replay) return html`<${ReplayScreen} conn=${conn} />`;
  if (conn.table.status === "waiting") return html`<${WaitingRoom} conn=${conn} />`;
  const st = conn.state;
  const mine = conn.mine();
  const pend = st.pending;
  document.title = `${mine ? "▶ Your move · " : ""}Civ Lite — ${clean(conn.table.name)}`;
  document.body.dataset.decision = mine ? conn.choices.kind : "";
  document.body.dataset.over = st.over ? "1" : "";
  document.body.dataset.seq = conn.seq;
  document.body.dataset.dn = conn.decision ?? "";
  const v = viewModel(conn, st, conn.log, conn.final);
  return html`<div class=${`tablescreen ${conn.seat === null ? "watching" : ""}`} data-testid="table">
    <${TopBar} conn=${conn} v=${v} />
    <${Opponents} v=${v} conn=${conn} />
    <div class="middle">
      <div class="centre">
        ${conn.notices.map((n, i) => html`<p class="notice" data-testid="notice" key=${i}>${n}</p>`)}
        ${st.over ? html`<${EndScreen} conn=${conn} v=${v} />` : conn.table.ended ? html`<${EndedEarly} conn=${conn} v=${v} />`
          : html`<${Board} v=${v} conn=${conn} />`}
      </div>
      <div class="side"><${Log} v=${v} /><${ChatBox} conn=${conn} /></div>
    </div>
    ${conn.table.status === "closed" && !conn.table.ended ? html`<p class="notice" data-testid="closed">This table was closed: nobody had played here for too long.</p>` : ""}
    ${conn.seat === null ? html`<section class="me spectator" aria-label="Watching">
        <p>You are watching: only public facts are shown. ${pend ? html`<${Waiting} v=${v} />` : ""}</p></section>`
      : html`<${MyArea} conn=${conn} v=${v} mine=${mine} />`}
    <div class="sr-only" aria-live="polite" role="status" data-testid="live">${conn.live}</div>
    <${RulesDialog} rules=${conn.table.rules} />
    ${conn.seat !== null ? html`<${ConcedeDialog} conn=${conn} v=${v} />` : ""}
    <${LineDialog} conn=${conn} />
  </div>`;
}

const leftSeats = (t) => t.left || [];
/** This seat may still concede: its player is in the game, which is being played. */
const canConcede = (conn) => conn.seat !== null && conn.table.status === "playing" && !conn.state?.over
  && !leftSeats(conn.table).includes(conn.seat);

/** A game that ended before anyone reached the target: conceded, voted to an end, or abandoned. */
function EndedEarly({ conn, v }) {
  const t = conn.table;
  const left = leftSeats(t);
  const rest = v.seats.map((_, i) => i).filter((i) => !left.includes(i));
  const winner = t.ended === "conceded" && rest.length === 1 ? rest[0] : null;
  const gone = left.map((i) => v.name(i));
  return html`<section class="endscreen" aria-labelledby="ended-h" data-testid="ended">
    <h2 id="ended-h" tabindex="-1">${winner === null ? "The game was ended early"
      : winner === v.me ? html`You win: ${gone.map((g, i) => html`${i ? ", " : ""}<${Name} name=${g} />`)} conceded`
        : html`<${Name} name=${v.name(winner)} /> wins: ${gone.map((g, i) => html`${i ? ", " : ""}<${Name} name=${g} you=${left[i] === v.me} />`)} conceded`}</h2>
    <p data-testid="ended-why">${t.ended === "conceded" ? html`Conceded: ${list(gone)}.`
      : "The players voted to end it, or nobody had played here for too long."}
      ${t.rated ? " This game was rated: the players who left or stalled count as its losers." : " This game was not rated."}</p>
    <div class="row"><a href=${`/api/tables/${conn.id}/record`} download=${`civlite-${conn.id}.json`}>Download the record</a>
      <a href="/" class="button">Lobby</a></div>
  </section>`;
}

/** "Concede?": what happens when this player gives up, said before it is done. */
function ConcedeDialog({ conn, v }) {
  const t = conn.table;
  const left = leftSeats(t);
  const others = v.seats.map((_, i) => i).filter((i) => i !== conn.seat && !left.includes(i));
  const close = (e) => e.currentTarget.closest("dialog").close();
  return html`<dialog id="concede-dialog" aria-labelledby="concede-h" aria-describedby="concede-what" data-testid="concede-dialog">
    <h2 id="concede-h">Concede this game?</h2>
    <ul id="concede-what">
      ${others.length <= 1 ? html`<li>The game ends now${others.length ? html`: <${Name} name=${v.name(others[0])} /> wins` : ""}.</li>`
        : html`<li>A bot plays on in your seat (marked “left — bot playing”); the others play on.</li>`}
      <li>${t.rated ? "This game is rated: it counts as a loss for you." : "This game is not rated: no rating changes."}</li>
      <li>You stay at the table as a spectator. A concession cannot be taken back.</li>
    </ul>
    <div class="row">
      <button type="button" class="primary" data-testid="concede-confirm" onClick=${(e) => { close(e); conn.concede(); }}>Concede</button>
      <button type="button" data-testid="concede-cancel" autofocus onClick=${close}>Keep playing</button></div>
  </dialog>`;
}

/** The player of the decision at hand is away: the others may vote to end the game (the
 *  server tells when it is too early). */
function VoteEnd({ conn, v }) {
  const t = conn.table;
  const p = v.st.pending;
  const ps = p ? v.seats[p.player] : null;
  const votes = t.votes || [];
  if (!canConcede(conn) || !p || p.player === conn.seat || !ps || ps.kind !== "human" || ps.connected) {
    return votes.length ? html`<p class="muted" data-testid="votes">Voted to end the game: ${list(votes.map((s) => v.name(s)))}.</p>` : "";
  }
  const voted = votes.includes(conn.seat);
  return html`<div class="vote" data-testid="vote">
    <p><${Name} name=${v.name(p.player)} /> is away. ${voted ? "You voted to end the game; the other players may vote too."
      : "If they have stopped playing, the players may vote to end the game (the one who stalls loses it)."}</p>
    ${votes.length ? html`<p class="muted" data-testid="votes">Voted so far: ${list(votes.map((s) => v.name(s)))}.</p>` : ""}
    ${voted ? "" : html`<div class="row"><button type="button" data-testid="vote-end" aria-disabled=${conn.leaving ? "true" : null}
      onClick=${() => { if (!conn.leaving) conn.voteEnd(); }}>Vote to end the game</button></div>`}
  </div>`;
}

function viewModel(conn, st, log, final) {
  const seats = conn.table.seats;
  const me = st.seat ?? null;
  const ctOf = (s) => (s === me ? st.ct : st.players.find((p) => p.seat === s)?.ct ?? 0);
  return { st, me, seats, log, final, rules: conn.table.rules, name: (s) => clean(seats[s]?.name ?? `Seat ${s + 1}`), ctOf, table: conn.table };
}

function TopBar({ conn, v }) {
  const { st, rules } = v;
  const clock = conn.clock && !st.over ? conn.clock : null;
  const left = clock ? Math.max(0, Math.round((clock.deadline - Date.now()) / 1000)) : 0;
  return html`<div class="topbar">
    <h1 class="tname"><${Name} name=${conn.table.name} /></h1>
    <span class="muted turninfo">Turn ${st.turn} · first to ${rules.victory_ct} CT</span>
    ${conn.table.practice ? html`<span class="badge practice" data-testid="practice" title="its creator chose the seed, so may know every card">practice table · seed ${conn.table.seed}</span>` : ""}
    ${clock ? html`<span class=${`clock ${left <= 10 ? "low" : ""}`} data-testid="clock" aria-label=${`Turn clock: ${v.name(clock.seat)}, ${left} seconds left`}>
      <${Icon} name="clock" /> <${Name} name=${v.name(clock.seat)} /> ${left} s</span>` : html`<span data-testid="clock"></span>`}
    <span class="spacer"></span>
    <details class="menu"><summary>Settings</summary>
      <div class="menu-body"><label><input type="checkbox" id="automeld" checked=${autoMeldPass()} data-testid="auto-meld"
        onChange=${(e) => { localStorage.setItem(AUTO_MELD_PASS, e.target.checked ? "1" : "0"); conn.draw(); }} />
        Pass the meld by itself when no meld is possible</label>
        <label><input type="checkbox" id="turn-sound" checked=${on(SOUND)} data-testid="turn-sound"
          onChange=${(e) => { localStorage.setItem(SOUND, e.target.checked ? "1" : "0"); if (e.target.checked) chime(); conn.draw(); }} />
          A sound when it is my turn</label>
        <label><input type="checkbox" id="turn-notify" checked=${on(NOTIFY)} data-testid="turn-notify"
          onChange=${(e) => askNotify(e.target.checked, conn)} />
          A notification when it is my turn and this tab is hidden</label>
        ${conn.seat !== null ? html`<label><input type="checkbox" id="hide-spectators" checked=${hideSpectators()} data-testid="hide-spectators"
          onChange=${(e) => { setHideSpectators(e.target.checked); conn.draw(); }} />
          Hide spectators' chat at every table</label>` : ""}
        ${conn.seat !== null && conn.token ? html`<p><button type="button" data-testid="new-invite" onClick=${() => conn.reissue()}>
          New invite link for my seat</button><br /><span class="muted">The old link stops working (if it was shared by mistake).</span></p>` : ""}
        ${canConcede(conn) ? html`<p><button type="button" data-testid="concede-open"
          onClick=${() => document.getElementById("concede-dialog")?.showModal()}>Concede the game…</button>
          <br /><span class="muted">It asks first, and says what happens.</span></p>` : ""}
        ${conn.newInvite ? html`<p><label>Your new link <input readonly data-testid="new-invite-link" value=${conn.newInvite}
          onFocus=${(e) => e.target.select()} /></label></p>` : ""}</div></details>
    <button type="button" data-testid="rules-open" onClick=${() => document.getElementById("rules-dialog")?.showModal()}>Rules</button>
    <a href="/" class="button">Lobby</a>
  </div>`;
}

/** Turn notifications on (asking the browser's permission) or off. */
async function askNotify(want, conn) {
  if (!want) { localStorage.setItem(NOTIFY, "0"); conn.draw(); return; }
  if (!("Notification" in window)) { conn.say("This browser cannot show notifications."); localStorage.setItem(NOTIFY, "0"); conn.draw(); return; }
  const got = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  localStorage.setItem(NOTIFY, got === "granted" ? "1" : "0");
  conn.say(got === "granted" ? "You will be notified when it is your turn and this tab is hidden."
    : "The browser refused notifications for this site (its settings can allow them).");
  conn.draw();
}

/** A table waiting for its players: who sits where, the open seats, the creator's start button, the chat. */
function WaitingRoom({ conn }) {
  const t = conn.table;
  const open = t.seats.filter((s) => s.kind === "open").length;
  const host = localStorage.getItem(`civlite.host.${conn.id}`);
  document.title = `Civ Lite — ${clean(t.name)} (waiting for players)`;
  document.body.dataset.over = "";
  const start = async () => {
    conn.error = "";
    try { await api(`/api/tables/${conn.id}/start`, { token: host, bot: conn.startBot || "medium" }); } catch (e) { conn.error = e.message; }
    conn.draw();
  };
  const levels = (META.levels || []).filter((l) => !t.rated || l.rating !== null);
  return html`<div class="waitroom" data-testid="waiting-room">
    <h1 class="tname"><${Name} name=${t.name} /></h1>
    <section class="panel" aria-labelledby="wr-h"><h2 id="wr-h" tabindex="-1">Waiting for ${open === 1 ? "1 more player" : `${open} more players`}</h2>
      <p class="muted">The game starts when every seat is taken${host ? ", or when you start it" : ""}. Open seats are listed in the lobby.</p>
      <ul class="tablelist" data-testid="wr-seats">${t.seats.map((s) => html`<li key=${s.seat}><span>Seat ${s.seat + 1}:
        ${s.kind === "open" ? html`<i>open</i>` : html`<b><${Name} name=${s.name} you=${s.seat === conn.seat} /></b>
          <span class="muted"> ${s.kind === "bot" ? `bot · ${s.bot}` : s.connected ? "here" : "away"}</span>`}</span></li>`)}</ul>
      ${host ? html`<div class="row"><label for="start-bot">Bots for the open seats</label>
        <select id="start-bot" value=${conn.startBot || "medium"} onChange=${(e) => { conn.startBot = e.target.value; }}>
          ${levels.map((l) => html`<option value=${l.name}>${l.name}</option>`)}</select>
        <button type="button" class="primary" data-testid="start-now" onClick=${start}>Start now with bots</button></div>` : ""}
      ${conn.error ? html`<p class="error" role="alert" data-testid="error">${conn.error}</p>` : ""}
      <p><a href="/" class="button">Lobby</a></p>
    </section>
    <${ChatBox} conn=${conn} />
    <div class="sr-only" aria-live="polite" role="status" data-testid="live">${conn.live}</div>
    <${LineDialog} conn=${conn} />
  </div>`;
}

/** The table's chat: lines as text only (never HTML), names isolated; muted players' lines hidden
 *  (mutes kept with the profile, or on this device without one). It keeps its newest line in
 *  view, unless the reader has scrolled up to read older ones (then it stays where they are,
 *  until they send a line or scroll back down). */
function ChatBox({ conn }) {
  const logRef = useRef(null);
  const atEnd = useRef(true); // the reader is at the newest line
  useLayoutEffect(() => {
    const l = logRef.current;
    if (l && (atEnd.current || conn.chatToEnd)) { l.scrollTop = l.scrollHeight; atEnd.current = true; }
    conn.chatToEnd = false;
  });
  const onScroll = (e) => { const l = e.currentTarget; atEnd.current = l.scrollTop + l.clientHeight >= l.scrollHeight - 8; };
  const seats = conn.table.seats;
  const hideW = conn.seat !== null && hideSpectators(); // a player's setting, for every table
  const shown = conn.chat.filter((l) => !(l.seat === null && hideW) && !isMuted(conn.id, seats, l.seat, l.profile));
  const me = myProfileHere();
  const hidden = conn.chat.length - shown.length;
  const others = seats.filter((s) => s.kind === "human" && s.seat !== conn.seat);
  const submit = (e) => {
    e.preventDefault();
    const inp = e.currentTarget.querySelector("input");
    conn.sendChat(inp.value);
    inp.value = "";
  };
  return html`<section class="chat" aria-labelledby="chat-h" data-testid="chat">
    <h2 id="chat-h">Chat${conn.table.chat === "players" ? html` <span class="muted">(players only: spectators talk among themselves)</span>` : ""}</h2>
    <ol class="chatlog" data-testid="chat-log" ref=${logRef} onScroll=${onScroll} tabindex="0" aria-live="polite" aria-relevant="additions" aria-label="chat messages">${shown.slice(-100).map((l) => html`<li key=${l.n}
        data-seat=${l.seat === null ? "" : l.seat}><b><${Name} name=${l.name} you=${l.seat !== null && l.seat === conn.seat} /></b>${l.seat === null ? html`<span class="muted"> (watching)</span>` : ""}${": "}<span class="chat-text">${l.text}</span>${lineProfile(l, seats) && me && lineProfile(l, seats) !== me.id
          ? html` <button type="button" class="linkish lineact" data-testid="line-menu" aria-haspopup="dialog"
            aria-label=${`Report or block ${clean(l.name)} (this line: ${clean(l.text).slice(0, 40)})`}
            onClick=${() => openLine(conn, l)}>⋯</button>` : ""}</li>`)}</ol>
    ${hidden ? html`<p class="muted" data-testid="chat-hidden">${plural(hidden, "line")} from muted players hidden${hideW ? " (spectators' too: see Settings)" : ""}.</p>` : ""}
    <form class="chatform" onSubmit=${submit}>
      <label class="sr-only" for="chat-in">Message</label>
      <input id="chat-in" data-testid="chat-input" maxlength="300" autocomplete="off" placeholder="Say something…" />
      <button type="submit" data-testid="chat-send">Send</button>
    </form>
    ${conn.chatError ? html`<p class="error" role="alert" data-testid="chat-error">${conn.chatError}</p>` : ""}
    ${mutes.error ? html`<p class="error" role="alert" data-testid="mute-error">${mutes.error}</p>` : ""}
    ${others.length || conn.seat !== null ? html`<details class="folded mute"><summary>Mute</summary>
      ${others.map((s) => html`<label key=${s.seat}><input type="checkbox" data-testid=${`mute-${s.seat}`} checked=${isMuted(conn.id, seats, s.seat)}
        onChange=${() => conn.toggleMute(s.seat)} /> <${Name} name=${s.name} />${s.profile ? html`<span class="muted"> (at every table)</span>` : ""}</label>`)}
      <label><input type="checkbox" data-testid="mute-spectators" checked=${hideW || isMuted(conn.id, seats, null)}
        disabled=${hideW} onChange=${() => conn.toggleMute(null)} /> spectators${hideW ? html`<span class="muted"> (hidden at every table: see Settings)</span>` : ""}</label></details>` : ""}
  </section>`;
}

/** The profile a chat line was said under (a player's is its seat's), or null. */
const lineProfile = (l, seats) => (l.seat === null ? l.profile || null : seats[l.seat]?.profile || null);

function openLine(conn, line) {
  conn.lineMenu = { line, profile: lineProfile(line, conn.table.seats), mode: "menu", reason: "", error: "", done: "" };
  conn.draw();
  document.getElementById("line-dialog")?.showModal();
}

/** Report a chat line to the server's operator, or block the profile that said it (its chat
 *  hidden wherever this profile reads, and never seated together again). */
function LineDialog({ conn }) {
  const m = conn.lineMenu;
  const close = () => { document.getElementById("line-dialog")?.close(); };
  const redraw = () => conn.draw();
  const act = async (what) => {
    const me = myProfileHere();
    if (!me) { m.error = "You need a profile to report or block."; redraw(); return; }
    m.error = ""; m.busy = true; redraw();
    try {
      if (what === "report") {
        const r = await api("/api/reports", { key: me.key, line: m.line.n, reason: m.reason.trim() });
        m.done = r.new === false ? "You had already reported this line." : "Reported: the server's operator will read it.";
      } else {
        await api("/api/profiles/me/blocks", { key: me.key, block: [m.profile] });
        await loadMutes(); // the block mutes them too: their lines go from this chat
        m.done = `Blocked: ${clean(m.line.name)}'s chat is hidden, and you will not be seated together.`;
      }
      conn.say(m.done);
    } catch (e) { m.error = e.message; }
    m.busy = false; redraw();
    document.getElementById(m.error ? "line-error" : "line-done")?.focus();
  };
  const body = !m ? "" : m.done ? html`<p id="line-done" tabindex="-1" role="status" data-testid="line-done">${m.done}</p>
      <div class="row"><button type="button" data-testid="line-close" onClick=${close}>Close</button></div>`
    : m.mode === "report" ? html`<form onSubmit=${(e) => { e.preventDefault(); act("report"); }}>
        <div class="field"><label for="report-reason">Why report it? (optional, for the operator)</label>
          <textarea id="report-reason" data-testid="report-reason" maxlength="200" rows="3" value=${m.reason}
            onInput=${(e) => { m.reason = e.target.value; }}></textarea></div>
        <div class="row"><button type="submit" class="primary" data-testid="report-send" aria-disabled=${m.busy ? "true" : null}>Send the report</button>
          <button type="button" onClick=${close}>Cancel</button></div></form>`
    : m.mode === "block" ? html`<p id="block-what">Block <${Name} name=${m.line.name} />? Their chat is hidden wherever you read,
        at every table, and you are never seated at a table with them.</p>
        <div class="row"><button type="button" class="primary" data-testid="block-confirm" aria-describedby="block-what"
            aria-disabled=${m.busy ? "true" : null} onClick=${() => { if (!m.busy) act("block"); }}>Block</button>
          <button type="button" onClick=${close}>Cancel</button></div>`
    : html`<div class="row">
        <button type="button" data-testid="report-open" onClick=${() => { m.mode = "report"; redraw(); document.getElementById("report-reason")?.focus(); }}>Report this line…</button>
        <button type="button" data-testid="block-open" onClick=${() => { m.mode = "block"; redraw(); document.querySelector("[data-testid=block-confirm]")?.focus(); }}>Block <${Name} name=${m.line.name} />…</button>
        <button type="button" onClick=${close}>Cancel</button></div>`;
  return html`<dialog id="line-dialog" aria-labelledby="line-h" data-testid="line-dialog" onClose=${() => { conn.lineMenu = null; conn.draw(); }}>
    <h2 id="line-h">${m ? html`A line from <${Name} name=${m.line.name} />` : "A chat line"}</h2>
    ${m ? html`<blockquote class="quoted"><span class="chat-text">${m.line.text}</span></blockquote>` : ""}
    ${body}
    ${m && m.error ? html`<p id="line-error" class="error" role="alert" tabindex="-1" data-testid="line-error">${m.error}</p>` : ""}
  </dialog>`;
}

function seatBadge(s, v) {
  const seat = v.seats[s];
  if (!seat) return "";
  if (leftSeats(v.table).includes(s)) return "left — bot playing";
  return seat.kind === "bot" ? `bot · ${seat.bot}` : seat.connected ? "online" : "offline";
}

function Opponents({ v, conn }) {
  const { st } = v;
  const pend = st.pending;
  // it scrolls sideways when the players do not fit: focusable, so a keyboard can scroll it too
  return html`<section class="opponents" tabindex="0" aria-label=${v.me === null ? "Players" : "Opponents"}>
    ${st.players.map((p) => {
      const active = pend && pend.player === p.seat && !v.table.ended;
      const flash = conn && conn.flash.has(p.seat);
      const d = conn ? conn.delta.get(p.seat) : 0;
      const last = conn ? conn.lastMove.get(p.seat) : null;
      return html`<article key=${p.seat} class=${`opp ${active ? "active" : ""} ${flash ? "flash" : ""}`} data-testid=${`opp-${p.seat}`}
          aria-labelledby=${`opp-h-${p.seat}`}>
        <h2 class="opp-h" id=${`opp-h-${p.seat}`}>${active ? html`<span class="tomove" aria-label="to move">▶</span> ` : ""}<${Name} name=${v.name(p.seat)} />
          <span class="seatno">seat ${p.seat + 1} · ${seatBadge(p.seat, v)}</span></h2>
        <div class="stats">
          <span class="ctv" data-testid=${`ct-${p.seat}`}><b>${p.ct}</b> CT${d ? html` <span class=${`delta ${d > 0 ? "up" : "down"}`}>${d > 0 ? `+${d}` : d}</span>` : ""}</span>
          <progress max=${v.rules.victory_ct} value=${Math.min(p.ct, v.rules.victory_ct)} aria-label=${`${v.name(p.seat)}: ${p.ct} of ${v.rules.victory_ct} CT`}></progress>
          ${p.known.length ? html`<span class="knowncount" title=${`you know ${p.known.join(", ")}`}>👁 ${p.known.length}</span>` : ""}
          <span class="handsize" title="cards in hand"><span class="backs" aria-hidden="true">🂠</span> <b data-testid=${`hand-size-${p.seat}`}>${p.hand_size}</b><span class="sr-only"> cards in hand</span></span>
        </div>
        ${p.known.length ? html`<div class="known"><span class="muted">Known:</span> <${Cards} cards=${[...p.known].sort(byHand)} small label="known cards" /></div>` : ""}
        ${last ? html`<p class="last" data-testid=${`last-${p.seat}`}>${sentence(last.text, v.name, v.me).parts}${last.via === "clock" ? html` <span class="badge">clock</span>` : ""}</p>` : ""}
      </article>`;
    })}
  </section>`;
}

function Waiting({ v }) {
  const p = v.st.pending;
  if (!p) return "";
  return html`<span data-testid="waiting">Waiting for <${Name} name=${v.name(p.player)} /> — ${KIND_WORDS[p.decision] || p.decision.replace(/_/g, " ")}.</span>`;
}

function Board({ v, conn }) {
  const { st } = v;
  const shown = conn && conn.showDiscard ? st.discard : st.discard.slice(-8);
  const fresh = conn ? conn.newDiscard : new Set();
  return html`<section class="board" aria-label="The table">
    <div class="pile deck" data-testid="deck"><div class="back" aria-hidden="true">🂠</div>
      <div><b data-testid="deck-size">${st.deck_size}</b> in the deck</div></div>
    <div class="pile discard"><div class="pile-h">Discard pile, face up (<span data-testid="discard-size">${st.discard.length}</span>)
      ${st.discard.length > 8 && conn ? html` <button type="button" class="linkish" aria-expanded=${conn.showDiscard ? "true" : "false"}
        onClick=${() => { conn.showDiscard = !conn.showDiscard; conn.draw(); }}>${conn.showDiscard ? "show the last 8" : `show all ${st.discard.length}`}</button>` : ""}</div>
      ${shown.length ? html`<ul class="cards" data-testid="discard" aria-label="discard pile, newest last">${shown.map((c) =>
        html`<li key=${c}><${Card} name=${c} small extraClass=${fresh.has(c) ? "fresh" : ""} /></li>`)}</ul>` : html`<p class="muted" data-testid="discard">empty</p>`}
    </div>
    ${st.pending && !(conn && conn.mine()) ? html`<p class="waitline"><${Waiting} v=${v} /></p>` : ""}
    ${conn ? html`<${ThisTurn} v=${v} />` : ""}
  </section>`;
}

/** What happened in this turn so far (and the turn before it), on the table itself. */
function ThisTurn({ v }) {
  const log = v.log;
  let start = log.length;
  let turns = 0;
  while (start > 0 && turns < 2) { start -= 1; if (log[start].kind === "turn") turns += 1; }
  const items = log.slice(start).filter((e) => e.kind !== "turn" && e.kind !== "shuffle");
  if (!items.length) return "";
  return html`<div class="thisturn"><h2 class="pile-h">Latest moves</h2>
    <ol data-testid="latest">${items.slice(-8).map((e, i) => html`<li key=${`${e.seq}-${i}`} title=${`Rule ${e.rule}`}>
      ${sentence(e.text, v.name, v.me).parts}${e.via === "clock" ? html` <span class="badge onfelt">clock</span>` : ""}</li>`)}</ol></div>`;
}

function Log({ v, entries }) {
  const items = (entries || v.log).slice(-150).reverse();
  return html`<section class="log" aria-labelledby="log-h">
    <h2 id="log-h">Log <span class="muted">(newest first; hover a line for its rule)</span></h2>
    <ol data-testid="log" tabindex="0" aria-label="game log, newest first">${items.map((e, i) => {
      const s = sentence(e.text || e.kind, v.name, v.me);
      return html`<li key=${`${e.seq}-${items.length - i}`} class=${`${e.kind === "turn" ? "turn" : ""} ${e.via === "clock" ? "byclock" : ""}`}
          title=${s.rule ? `Rule ${s.rule}` : ""} data-rule=${s.rule}>
        ${s.parts}${e.via === "clock" ? html` <span class="badge" title="the turn clock ran out: a bot decided">clock</span>` : ""}</li>`;
    })}</ol></section>`;
}

// ---------------------------------------------------------------- your hand and your decision
function MyArea({ conn, v, mine }) {
  const { st } = v;
  const c = mine ? conn.choices : null;
  const pick = handPicker(conn, c);
  const hand = [...st.hand].sort(byHand);
  const lost = conn.lost;
  return html`<section class="me" aria-label="Your hand and your move">
    <div class="handbox">
      <h2 id="hand-h" tabindex="-1">Your hand <span class="muted">(${hand.length})</span>
        · <span data-testid="my-ct"><b>${st.ct}</b> CT</span>${conn.delta.get(v.me) ? html` <span class=${`delta ${conn.delta.get(v.me) > 0 ? "up" : "down"}`}>${conn.delta.get(v.me) > 0 ? "+" : ""}${conn.delta.get(v.me)}</span>` : ""}
        <progress max=${v.rules.victory_ct} value=${Math.min(st.ct, v.rules.victory_ct)} aria-label=${`you: ${st.ct} of ${v.rules.victory_ct} CT`}></progress></h2>
      ${lost ? html`<div class="taken" data-testid="taken" role="note">
          <span><${Name} name=${v.name(lost.by)} /> ${lost.ct ? `took ${lost.ct} CT` : `took ${plural(lost.cards.length || lost.count, "card")}`} from you (${lost.ability}):</span>
          ${lost.cards.length ? html`<${Cards} cards=${lost.cards} small label="taken from you" />` : ""}
          <button type="button" class="linkish" onClick=${() => { conn.lost = null; conn.focusNext = "#hand-h"; conn.draw(); }}>dismiss</button></div>` : ""}
      <ul class="hand" data-testid="hand" aria-label="your cards">${hand.map((name) => html`<li key=${name}>
        <${Card} name=${name} testid=${`hand-${name}`} pressed=${pick.pressed(name)} disabled=${pick.enabled && !pick.can(name)}
          onClick=${pick.enabled ? () => { if (pick.can(name)) pick.toggle(name); } : null} /></li>`)}</ul>
    </div>
    <div class="actions" data-testid="decision" data-kind=${mine ? c.kind : ""} data-count=${c?.discard?.count || 0}>
      ${mine ? html`<${HintButton} conn=${conn} />` : ""}
      ${st.over || conn.table.ended ? html`<p>The game is over.</p>` : mine ? html`<${Decision} conn=${conn} v=${v} c=${c} />`
        : html`<h2 id="decision-h" tabindex="-1" class="dh">Not your turn</h2><p><${Waiting} v=${v} /></p>`}
      ${st.over || conn.table.ended ? "" : html`<${VoteEnd} conn=${conn} v=${v} />`}
      ${conn.leaving ? html`<p class="muted" role="status">${conn.leaving === "vote" ? "Sending your vote…" : "Conceding…"}</p>` : ""}
      ${conn.leaveError ? html`<p class="error" role="alert" data-testid="leave-error">${conn.leaveError}</p>` : ""}
      ${conn.error ? html`<p class="error" role="alert" data-testid="error">${conn.error}</p>` : ""}
    </div>
  </section>`;
}

function abilityOf(c, key) { return c?.abilities?.find((a) => a.key === key) || null; }
const namesOf = (cards) => (cards || []).map((x) => (typeof x === "string" ? x : x.name));

/** Which hand cards may be tapped now, and what a tap does (all from the choices). */
function handPicker(conn, c) {
  const ui = conn.ui;
  const none = { enabled: false, pressed: () => false, can: () => false, toggle: () => {} };
  if (!c || conn.busy) return { ...none, pressed: (n) => ui.cards?.includes(n) };
  const redraw = () => conn.draw();
  const toggleIn = (n, max) => {
    const i = ui.cards.indexOf(n);
    if (i >= 0) ui.cards.splice(i, 1);
    else { if (ui.cards.length >= max) ui.cards.shift(); ui.cards.push(n); }
    redraw();
  };
  if (c.kind === "action") {
    const a = abilityOf(c, ui.ability);
    if (!a) return { enabled: true, pressed: (n) => ui.cards.includes(n), can: () => true, toggle: (n) => toggleIn(n, 8) };
    const payable = namesOf(a.payable);
    return {
      enabled: true, pressed: (n) => payCards(ui, a).includes(n), can: (n) => payable.includes(n),
      toggle: (n) => { ui.cards = ui.cards.filter((x) => payable.includes(x)); toggleIn(n, a.cost); },
    };
  }
  if (c.kind === "meld" && c.meld?.possible) {
    const slots = c.meld.slots.map((s) => namesOf(s.cards));
    return {
      enabled: true, pressed: (n) => ui.meld.includes(n), can: (n) => slots.some((s) => s.includes(n)),
      toggle: (n) => { const i = slots.findIndex((s) => s.includes(n)); if (i >= 0) { ui.meld[i] = n; redraw(); } },
    };
  }
  if (c.discard) {
    const from = namesOf(c.discard.from_cards);
    return { enabled: true, pressed: (n) => ui.cards.includes(n), can: (n) => from.includes(n), toggle: (n) => toggleIn(n, c.discard.count) };
  }
  return none;
}

/** The cards that would pay: the player's picks of the suit first, then the first payable ones. */
function payCards(ui, a) {
  const payable = namesOf(a.payable);
  const picked = ui.cards.filter((n) => payable.includes(n));
  return [...picked, ...payable.filter((n) => !picked.includes(n))].slice(0, a.cost);
}

function meldCards(ui, c) {
  return c.meld.slots.map((s, i) => { const names = namesOf(s.cards); return names.includes(ui.meld[i]) ? ui.meld[i] : names[0]; });
}

function Decision({ conn, v, c }) {
  const ui = conn.ui;
  const busy = conn.busy;
  const k = c.kind;
  const set = (f) => () => { f(); conn.draw(); };
  const Sending = busy ? html`<p class="muted" role="status">sending…</p>` : "";
  if (k === "action") {
    const a = abilityOf(c, ui.ability);
    if (!a) {
      const ok = c.abilities.filter((x) => x.affordable);
      const rest = c.abilities.filter((x) => !x.affordable);
      return html`<h2 id="decision-h" tabindex="-1" class="dh">Your turn: use one ability, or pass</h2>
        ${ui.cards.length ? html`<p class="muted" data-testid="pay-hint">Picked to pay first: ${ui.cards.join(", ")}
          <button type="button" class="linkish" onClick=${set(() => { ui.cards = []; })}>clear</button></p>` : ""}
        <ul class="abilities" aria-label="abilities you can use">${ok.map((x) => html`<li key=${x.key}>
          <button type="button" class=${`ability s${suitIndex(x.suit)}`} data-ability=${x.name} aria-disabled=${busy ? "true" : null}
            onClick=${set(() => { ui.ability = x.key; const t = x.targets || []; ui.target = t.length === 1 ? t[0] : null; conn.focusNext = "#confirm"; })}>
            <span class="ab-h"><span aria-hidden="true">${ICONS[suitIndex(x.suit)]}</span> ${x.name}</span>
            <span class="ab-t">${x.text}</span>
            <span class="ab-c">pay ${x.cost} ${suitName(suitIndex(x.suit))} · ${x.level}</span></button></li>`)}</ul>
        ${ok.length ? "" : html`<p class="muted">No ability is affordable with this hand.</p>`}
        ${rest.length ? html`<details class="folded"><summary>Abilities you cannot afford now (${rest.length})</summary>
          <ul class="abilities-off">${rest.map((x) => html`<li key=${x.key}><b>${ICONS[suitIndex(x.suit)]} ${x.name}</b>: ${x.text}
            <span class="muted">(pay ${x.cost} ${suitName(suitIndex(x.suit))})</span></li>`)}</ul></details>` : ""}
        <div class="row"><button type="button" class="big" data-choice="pass" aria-disabled=${busy || !c.can_pass ? "true" : null} onClick=${() => conn.act({ do: "pass" })}>Pass (no ability)</button></div>${Sending}`;
    }
    const cards = payCards(ui, a);
    const targets = a.targets || [];
    const ready = cards.length === a.cost && (!a.needs_target || ui.target !== null);
    // the engine's text names the target "an opponent": once chosen, the preview names them
    const named = a.needs_target && ui.target !== null;
    const text = named && a.text.includes("an opponent") ? a.text.replace("an opponent", v.name(ui.target)) : a.text;
    const preview = `pay ${cards.join(", ")}${named && text === a.text ? `, targeting ${v.name(ui.target)}` : ""}: ${text}`;
    return html`<h2 id="decision-h" tabindex="-1" class="dh">${ICONS[suitIndex(a.suit)]} ${a.name}</h2>
      <p class="muted">${a.cost > 1 || namesOf(a.payable).length > a.cost ? `Tap your ${suitName(suitIndex(a.suit))} cards to choose ${a.cost === 1 ? "the card that pays" : `the ${a.cost} cards that pay`}.` : ""}</p>
      ${a.needs_target ? (targets.length === 1 ? html`<p data-testid="target">Target: <${Name} name=${v.name(targets[0])} /> (your only opponent)</p>`
        : html`<fieldset class="targets" data-testid="targets"><legend>Choose an opponent</legend>${targets.map((t) => html`<label key=${t} class="target">
            <input type="radio" name="target" value=${t} checked=${ui.target === t} data-target=${t} onChange=${set(() => { ui.target = t; })} />
            <${Name} name=${v.name(t)} /> <span class="muted">(${v.st.players.find((p) => p.seat === t)?.hand_size ?? "?"} cards, ${v.ctOf(t)} CT)</span></label>`)}</fieldset>`) : ""}
      <p class="preview" data-testid="preview">${preview[0].toUpperCase()}${preview.slice(1)}</p>
      <div class="row">
        <button type="button" id="confirm" class="primary big" data-choice="confirm" aria-disabled=${!ready || busy ? "true" : "false"}
          onClick=${() => { if (ready) conn.act({ do: a.level, cards, ...(a.needs_target ? { target: ui.target } : {}) }); }}>Confirm</button>
        <button type="button" data-choice="cancel" aria-disabled=${busy ? "true" : null} onClick=${set(() => { ui.ability = null; ui.target = null; ui.cards = []; conn.focusNext = "#decision-h"; })}>Cancel</button>
      </div>${Sending}`;
  }
  if (k === "meld") {
    const m = c.meld;
    if (!m.possible) {
      return html`<h2 id="decision-h" tabindex="-1" class="dh">Meld: none is possible</h2>
        <p class="muted">A meld needs one card of each major suit and a ${list(namesOfSuits(m.slots[m.slots.length - 1]?.suits))}.
          ${autoMeldPass() ? "Passing by itself (see Settings)." : ""}</p>
        <div class="row"><button type="button" class="big primary" data-choice="pass" aria-disabled=${busy ? "true" : null} onClick=${() => conn.act({ do: "pass" })}>Pass (no meld)</button></div>${Sending}`;
    }
    const cards = meldCards(ui, c);
    return html`<h2 id="decision-h" tabindex="-1" class="dh">A meld is possible: +${m.ct} CT, draw ${m.draw}</h2>
      <p class="muted">Tap a card in your hand to put it in its slot instead.</p>
      <ul class="meld" data-testid="meld-builder">${cards.map((n, i) => html`<li key=${i}><${Card} name=${n} small /></li>`)}</ul>
      <p class="preview" data-testid="preview">Meld ${cards.join(", ")}: gain ${m.ct} CT, draw ${m.draw}</p>
      <div class="row"><button type="button" id="confirm" class="primary big" data-choice="meld" aria-disabled=${busy ? "true" : null} onClick=${() => conn.act({ do: "meld", cards })}>Confirm the meld</button>
        <button type="button" class="big" data-choice="pass" aria-disabled=${busy ? "true" : null} onClick=${() => conn.act({ do: "pass" })}>Pass (no meld)</button></div>${Sending}`;
  }
  if (c.take) {
    const cand = [...new Set(namesOf(c.take.candidates))].sort(byHand);
    const from = c.take.source === "deck" ? "the deck" : "the discard pile";
    return html`<h2 id="decision-h" tabindex="-1" class="dh">Take 1 card from ${from}</h2>
      <ul class="cards takes" data-testid="take-choices" aria-label=${`cards in ${from}`}>${cand.map((n) => html`<li key=${n}>
        <${Card} name=${n} small pressed=${ui.take === n} testid=${`take-${n}`} onClick=${busy ? null : set(() => { ui.take = n; conn.focusNext = "#confirm"; })} /></li>`)}</ul>
      ${ui.take ? html`<p class="preview" data-testid="preview">Take ${ui.take} from ${from}</p>` : ""}
      <div class="row"><button type="button" id="confirm" class="primary big" data-choice="take" aria-disabled=${!ui.take || busy ? "true" : "false"} onClick=${() => { if (ui.take) conn.act({ do: "take", card: ui.take }); }}>Confirm</button></div>${Sending}`;
  }
  if (c.discard) {
    const d = c.discard;
    const chosen = ui.cards.filter((n) => namesOf(d.from_cards).includes(n));
    return html`<h2 id="decision-h" tabindex="-1" class="dh">${d.reason}: discard ${plural(d.count, "card")}</h2>
      <p class="muted" data-testid="discard-count">Tap cards in your hand to choose them (${chosen.length} of ${d.count} chosen).</p>
      ${chosen.length ? html`<p class="preview" data-testid="preview">Discard ${chosen.join(", ")}</p>` : ""}
      <div class="row"><button type="button" id="confirm" class="primary big" data-choice="discard" aria-disabled=${chosen.length !== d.count || busy ? "true" : "false"}
          onClick=${() => { if (chosen.length === d.count) conn.act({ do: "discard", cards: chosen }); }}>Confirm the discard</button>
        <button type="button" data-clear aria-disabled=${chosen.length ? "false" : "true"} onClick=${set(() => { ui.cards = []; })}>Clear</button></div>${Sending}`;
  }
  return html`<h2 id="decision-h" tabindex="-1" class="dh">${k}</h2>`;
}

function namesOfSuits(suits) { return (suits || []).map((s) => suitName(suitIndex(s))); }

// ---------------------------------------------------------------- the end
function EndScreen({ conn, v }) {
  const { st } = v;
  const f = conn.final;
  const n = v.seats.length;
  const cts = f ? f.ct : Array.from({ length: n }, (_, s) => v.ctOf(s));
  const order = Array.from({ length: n }, (_, s) => s).sort((a, b) => cts[b] - cts[a] || a - b);
  const w = st.winner;
  const title = w === null ? `A draw between ${list((st.drawn || []).map((s) => v.name(s)))}` : w === v.me ? "You win!" : `${v.name(w)} wins!`;
  return html`<section class="endscreen" aria-labelledby="end-h" data-testid="winner">
    <h2 id="end-h" tabindex="-1">${w === null || w === v.me ? title : html`<${Name} name=${v.name(w)} /> wins!`}</h2>
    <p class="muted">${w !== null ? `Reached ${cts[w]} CT (the target was ${v.rules.victory_ct}) on turn ${st.turn}.` : `Turn ${st.turn}.`}</p>
    <table class="standings" data-testid="standings"><caption class="sr-only">Final standings</caption>
      <thead><tr><th scope="col">#</th><th scope="col">Player</th><th scope="col">CT</th><th scope="col">Hand at the end</th></tr></thead>
      <tbody>${order.map((s, i) => html`<tr key=${s} class=${s === w ? "won" : ""}>
        <td>${i + 1}</td><th scope="row"><${Name} name=${v.name(s)} you=${s === v.me} /></th><td data-testid=${`final-ct-${s}`}><b>${cts[s]}</b></td>
        <td>${f ? html`<${Cards} cards=${[...f.hands[s]].sort(byHand)} small empty="empty" testid=${`final-hand-${s}`} label=${`${v.name(s)}'s hand`} />` : ""}</td></tr>`)}</tbody></table>
    <div class="row">
      ${conn.seat !== null ? html`<button type="button" class="primary big" data-testid="rematch"
          aria-busy=${conn.wantRematch ? "true" : "false"} disabled=${conn.wantRematch}
          onClick=${() => {
            if (conn.table.rematch) { conn.goRematch(); return; }
            // shown at once: the table is being made (the answer takes a round trip and a write)
            conn.wantRematch = true; conn.send({ v: PROTOCOL, type: "rematch" }); conn.draw();
          }}>
          ${conn.wantRematch ? "Rematch on its way…" : conn.table.rematch ? "Go to the rematch" : "Rematch"}</button>` : conn.table.rematch ? html`<a href=${`/t/${conn.table.rematch}`}>Watch the rematch</a>` : ""}
      <button type="button" class="big" data-testid="replay-open" onClick=${() => conn.openReplay(conn.seat)}>Watch the replay</button>
      <${ReviewButton} conn=${conn} />
      <a href=${`/api/tables/${conn.id}/record`} download=${`civlite-${conn.id}.json`}>Download the record</a>
    </div>
  </section>`;
}

// ---------------------------------------------------------------- the replay viewer
function ReplayScreen({ conn }) {
  const r = conn.replay;
  const steps = r.data.steps;
  const i = r.step;
  const step = steps[i];
  const st = step.state;
  const entries = steps.slice(0, i + 1).flatMap((s) => s.events);
  const v = viewModel(conn, st, entries, st.over ? r.data.final : null);
  const go = (k) => () => { r.step = Math.max(0, Math.min(steps.length - 1, k)); conn.draw(); };
  document.body.dataset.replayStep = i;
  const by = step.by;
  return html`<div class="tablescreen replay" data-testid="replay">
    <div class="topbar">
      <h1 class="tname" id="replay-h" tabindex="-1">Replay: <${Name} name=${conn.table.name} /></h1>
      <label>Watch as <select data-testid="replay-seat" value=${r.seat === null ? "" : String(r.seat)}
          onChange=${(e) => conn.openReplay(e.target.value === "" ? null : +e.target.value)}>
        <option value="">a spectator</option>
        ${conn.table.seats.map((s, k) => html`<option value=${String(k)}>seat ${k + 1}: ${clean(s.name)}</option>`)}</select></label>
      <span class="spacer"></span>
      <button type="button" data-testid="replay-close" onClick=${() => { conn.replay = null; conn.focusNext = "#end-h"; conn.draw(); }}>Back to the table</button>
    </div>
    <div class="replaybar" role="group" aria-label="Replay steps">
      <button type="button" onClick=${go(0)} disabled=${i === 0} aria-label="first step"><${Icon} name="first" /></button>
      <button type="button" data-testid="replay-prev" onClick=${go(i - 1)} disabled=${i === 0} aria-label="previous step">◀</button>
      <input type="range" min="0" max=${steps.length - 1} value=${i} aria-label="step" onInput=${(e) => go(+e.target.value)()} />
      <button type="button" data-testid="replay-next" onClick=${go(i + 1)} disabled=${i === steps.length - 1} aria-label="next step">▶</button>
      <button type="button" onClick=${go(steps.length - 1)} disabled=${i === steps.length - 1} aria-label="last step"><${Icon} name="last" /></button>
      <span data-testid="replay-pos" aria-live="polite">Step ${i} of ${steps.length - 1}${by ? html`: <${Name} name=${v.name(by.seat)} />${by.via === "clock" ? " (clock)" : by.via === "bot" ? " (bot)" : ""}` : ": the deal"}</span>
    </div>
    <${Opponents} v=${v} conn=${null} />
    <div class="middle">
      <div class="centre">
        <ol class="stepevents" data-testid="replay-events">${step.events.map((e, k) => html`<li key=${k} title=${`Rule ${e.rule}`}>${sentence(e.text, v.name, v.me).parts}</li>`)}</ol>
        <${ReplayMark} conn=${conn} step=${i} nameOf=${v.name} />
        <${Board} v=${v} conn=${null} />
        <${ReviewPanel} conn=${conn} nameOf=${v.name} go=${(k) => go(k)()} />
      </div>
      <${Log} v=${v} entries=${entries} />
    </div>
    ${r.seat !== null ? html`<section class="me" aria-label="Hand"><div class="handbox"><h2>Hand of <${Name} name=${v.name(r.seat)} /> · ${st.ct} CT</h2>
      <${Cards} cards=${[...st.hand].sort(byHand)} testid="replay-hand" label="hand" empty="empty" /></div></section>` : ""}
  </div>`;
}

// ---------------------------------------------------------------- rules
function RulesDialog({ rules }) {
  const close = (e) => e.currentTarget.closest("dialog").close();
  const majors = rules.meld_suits.map((s) => suitName(s));
  const minors = rules.meld_one_of.map((s) => suitName(s));
  return html`<dialog id="rules-dialog" aria-labelledby="rules-h" data-testid="rules">
    <div class="dialog-head"><h2 id="rules-h">How to play</h2><button type="button" onClick=${close} data-testid="rules-close">Close</button></div>
    <p><b>CT (Civ Tokens)</b> are points: the first player to hold <b>${rules.victory_ct} CT</b> wins at once (R8.1).</p>
    <p><b>Your turn</b> (R4): draw ${rules.rise_draw} cards; then use <b>one</b> ability or pass; then meld or pass;
      then discard down to ${rules.hand_limit} cards if you hold more.</p>
    <p><b>Abilities</b> (R5, R6): discard cards of one suit to use that suit's ability — a basic one costs 1 card, an advanced one more.</p>
    <table class="ruletable"><thead><tr><th scope="col">Suit</th><th scope="col">Ability</th><th scope="col">Cost</th><th scope="col">Effect</th></tr></thead>
      <tbody>${rules.abilities.map((a) => html`<tr key=${a.key || a.name}><td class=${`s${a.suit} suitcell`}>${ICONS[a.suit]} ${suitName(a.suit)}</td>
        <td>${a.name}</td><td>${a.cards}</td><td>${a.text} <span class="muted">(${a.rule})</span></td></tr>`)}</tbody></table>
    <p><b>Meld</b> (R7): 7 cards — one of each major suit (${list(majors)}) and one ${list(minors).replace(/ and /, " or ")} —
      gives ${rules.meld_ct} CT, then you draw ${rules.meld_draw}.</p>
    <p><b>Hidden cards</b>: the deck and the others' hands are secret; the discard pile is face up (R3.2).
      A card of yours an opponent has seen is shown under their name as “known”.</p>
  </dialog>`;
}

export { META };
