// Civ Lite: Ancients — browser client (plain ES modules, no build step, works offline).
// The page is drawn with Preact + htm (vendored, one file): updates change the page in place,
// so keyboard focus stays where it was. Everything shown comes from the server's messages.
import { html, render, api, setMeta, META, Name, clean, SignedOutNotice } from "./ui.js";
import { TableConn, TableScreen } from "./table.js";
import { TutorialEntry } from "./review.js";
import { myProfile, ProfilePage, PublicProfile, Leaderboard, restore, resetPages } from "./community.js";

const $app = document.getElementById("app");
const $status = document.getElementById("status");

export function setStatus(text, bad = false) {
  $status.textContent = text;
  $status.classList.toggle("bad", bad);
}

// ---------------------------------------------------------------- seats this browser holds
function mySeats() {
  try { return JSON.parse(localStorage.getItem("civlite.seats") || "[]"); } catch (e) { return []; }
}
export function rememberSeat(table, token, seat, name) {
  const list = mySeats().filter((x) => !(x.table === table && x.seat === seat));
  list.unshift({ table, token, seat, name, at: Date.now() });
  localStorage.setItem("civlite.seats", JSON.stringify(list.slice(0, 20)));
}

// ---------------------------------------------------------------- lobby
const lobbyState = {
  n: 2, seats: [], rules: "default", victory: null, clock: "", name: "", error: "", created: null, open: null, waiting: null,
  rated: false, practice: false, seed: "", playersChat: false, takeError: "", joinName: "",
  turns: [], mail: null, mailAddress: "", mailNote: "",
};

function seatDefaults(i) { return { kind: i === 0 ? "human" : "bot:medium", name: "" }; }
/** "Bot: hard (expert, Elo 1100)": a named level, the bot it plays and its ladder rating. */
function levelLabel(l) {
  const cap = l.name.charAt(0).toUpperCase() + l.name.slice(1);
  return `Bot: ${cap} (${l.bot.split(":")[0]}${l.rating === null || l.rating === undefined ? "" : `, Elo ${l.rating}`})`;
}

function Lobby() {
  const L = lobbyState;
  const rs = META.rulesets;
  while (L.seats.length < L.n) L.seats.push(seatDefaults(L.seats.length));
  const seats = L.seats.slice(0, L.n);
  const victory = L.victory ?? rs[L.rules]?.victory_ct ?? 20;
  const set = (k) => (e) => { L[k] = e.target.value; draw(); };
  const create = async (e) => {
    e.preventDefault();
    L.error = "";
    const prof = myProfile();
    const body = {
      name: L.name.trim(),
      seats: seats.map((s, i) => (s.kind === "human" ? { kind: "human", name: s.name.trim() || null, ...(i === 0 && prof ? { profile: prof.key } : {}) }
        : s.kind === "open" ? { kind: "open" } : { kind: "bot", bot: s.kind.slice(4), name: s.name.trim() || null })),
      // a rated table plays the rated rule set as it is (the server refuses any other target)
      rules: L.rated ? ratedRules() : L.rules, victory_ct: L.rated ? null : +victory || null, ...(L.clock.startsWith("d") ? { clock_days: +L.clock.slice(1) } : { clock: L.clock ? +L.clock : null }),
      rated: L.rated, chat: L.playersChat ? "players" : "all",
      ...(L.practice && !L.rated ? { practice: true, ...(/^\d+$/.test(L.seed.trim()) ? { seed: +L.seed.trim() } : {}) } : {}),
    };
    try {
      L.created = await api("/api/tables", body);
      if (L.created.host) localStorage.setItem(`civlite.host.${L.created.id}`, L.created.host);
      refreshOpen();
    } catch (err) { L.error = err.message; }
    draw();
    document.getElementById(L.error ? "cerr" : "created-h")?.focus();
  };
  const mine = mySeats();
  const prof = myProfile();
  const take = async (t) => {
    L.takeError = "";
    try {
      const got = await api(`/api/tables/${t.id}/take`, { name: (L.joinName || "").trim() || null, ...(prof ? { profile: prof.key } : {}) });
      const token = got.invite.split("#k=")[1];
      rememberSeat(t.id, token, got.seat, t.name);
      history.pushState({}, "", got.invite);
      route();
      return;
    } catch (err) { L.takeError = err.message; refreshOpen(); }
    draw();
    document.getElementById("terr")?.focus();
  };
  return html`<div class="lobby">
    <h1 class="lobby-h" data-testid="lobby-h">Lobby: start a table, or join one</h1>
    <${SignedOutNotice} />
    <p class="lobby-me">${prof ? html`Playing as <a href="/profile" data-nav data-testid="profile-link"><${Name} name=${prof.name} /></a>`
      : html`<a href="/profile" data-nav data-testid="profile-link">Make a profile</a> (for rated tables)`} · <a href="/leaderboard" data-nav>Leaderboard</a></p>
    <${TutorialEntry} rememberSeat=${rememberSeat} route=${route} />
    <section class="panel" aria-labelledby="new-h" data-testid="create">
      <h2 id="new-h">New table</h2>
      <form onSubmit=${create}>
        <div class="field"><label for="tname">Table name</label>
          <input id="tname" placeholder="Friday game" maxlength="80" value=${L.name} onInput=${set("name")} /></div>
        <div class="fields">
          <div class="field"><label for="nseats">Seats</label>
            <select id="nseats" value=${L.n} onChange=${(e) => { L.n = +e.target.value; draw(); }}>
              ${[2, 3, 4, 5, 6, 7, 8].map((n) => html`<option value=${n}>${n}</option>`)}</select></div>
          <div class="field"><label for="rules">Rules</label>
            <select id="rules" value=${L.rated ? ratedRules() : L.rules} disabled=${L.rated && !!META.rated_rules} aria-describedby=${L.rated ? "rated-note" : null} onChange=${(e) => { L.rules = e.target.value; L.victory = null; draw(); }}>
              ${Object.entries(rs).map(([k, r]) => html`<option value=${k}>${k} (first to ${r.victory_ct} CT)</option>`)}</select></div>
          <div class="field"><label for="victory">Victory target (CT)</label>
            <input id="victory" type="number" min="1" max="200" value=${L.rated ? rs[ratedRules()]?.victory_ct ?? victory : victory}
              disabled=${L.rated} aria-describedby=${L.rated ? "rated-note" : null} onInput=${(e) => { L.victory = e.target.value; }} /></div>
          <div class="field"><label for="clock">Turn clock</label>
            <select id="clock" value=${L.clock} onChange=${set("clock")}>
              <option value="">none</option><option value="30">30 s</option><option value="60">1 min</option>
              <option value="120">2 min</option><option value="300">5 min</option>
              <option value="d1">1 day (turn-based)</option><option value="d3">3 days (turn-based)</option>
              <option value="d7">7 days (turn-based)</option></select></div>
        </div>
        <fieldset class="seats" id="seats"><legend>Players</legend>
          ${seats.map((s, i) => html`<div class="seatrow" data-seat=${i} key=${i}>
            <span class="seatno">Seat ${i + 1}</span>
            <label class="sr-only" for=${`kind-${i}`}>Seat ${i + 1} player</label>
            <select id=${`kind-${i}`} class="kind" data-testid=${`seat-kind-${i}`} value=${s.kind}
              onChange=${(e) => { s.kind = e.target.value; draw(); }}>
              <option value="human">Human (invite link)</option>
              <option value="open">Open seat (anyone from the lobby)</option>
              ${(META.levels || []).map((l) => html`<option value=${`bot:${l.name}`}>${levelLabel(l)}</option>`)}
              ${META.bots.filter((b) => !(META.levels || []).some((l) => l.name === b))
                .map((b) => html`<option value=${`bot:${b}`}>Bot: ${b}</option>`)}</select>
            <label class="sr-only" for=${`sname-${i}`}>Seat ${i + 1} name</label>
            <input id=${`sname-${i}`} class="sname" maxlength="40" value=${s.name}
              placeholder=${i === 0 ? "your name" : "name (optional)"} onInput=${(e) => { s.name = e.target.value; }} />
          </div>`)}
        </fieldset>
        <div class="checks">
          <label><input type="checkbox" id="rated" checked=${L.rated} data-testid="rated"
            onChange=${(e) => { L.rated = e.target.checked; if (L.rated) L.practice = false; draw(); }} />
            Rated${prof ? "" : " (every player needs a profile)"}</label>
          ${L.rated ? html`<p id="rated-note" class="muted" data-testid="rated-note">A rated table plays the server's rated rules as they are
            (${META.rated_rules ? `${ratedRules()}: ` : ""}first to ${rs[ratedRules()]?.victory_ct ?? "?"} CT), deals from a secret seed and gives no hints.</p>` : ""}
          <div class="practicebox"><label><input type="checkbox" id="practice" checked=${L.practice && !L.rated} disabled=${L.rated}
              data-testid="practice-check" aria-describedby="practice-note" onChange=${(e) => { L.practice = e.target.checked; draw(); }} />
            Practice table (unrated)</label>
            <p id="practice-note" class="muted">${L.rated ? "A rated table cannot be a practice table." : "Hints are offered at every decision, and the deal's seed is shown to every player, so anyone may know the cards: never rated."}</p>
            ${L.practice && !L.rated ? html`<div class="field"><label for="seed">Seed (optional: the same seed deals the same game)</label>
              <input id="seed" inputmode="numeric" pattern="[0-9]*" maxlength="18" data-testid="seed" value=${L.seed}
                placeholder="chosen at random" onInput=${(e) => { L.seed = e.target.value; }} /></div>` : ""}</div>
          <label><input type="checkbox" id="players-chat" checked=${L.playersChat} onChange=${(e) => { L.playersChat = e.target.checked; }} />
            Chat: players only (spectators talk among themselves)</label>
        </div>
        <div class="row"><button type="submit" class="primary big" id="create" data-testid="create-table">Create table</button></div>
        <p id="cerr" class="error" role="alert" tabindex="-1" data-testid="create-error">${L.error}</p>
      </form>
    </section>
    ${L.created ? html`<${Created} t=${L.created} />` : ""}
    ${mine.length ? html`<section class="panel" aria-labelledby="mine-h" data-testid="my-tables"><h2 id="mine-h">Your seats</h2>
      <ul class="tablelist">${mine.map((x) => html`<li key=${`${x.table}-${x.seat}`}><span><b><${Name} name=${x.name} /></b>
        <span class="muted"> seat ${x.seat + 1}</span>${L.turns.some((y) => y.table === x.table && y.seat === x.seat)
          ? html` <span class="badge yourturn" data-testid="your-turn">your turn</span>` : ""}</span><a href=${`/t/${x.table}#k=${x.token}`} onClick=${nav}>resume</a></li>`)}</ul></section>` : ""}
    ${L.turns.some((y) => !mine.some((x) => x.table === y.table)) ? html`<section class="panel" aria-labelledby="turns-h" data-testid="my-turns">
      <h2 id="turns-h">Your turn <span class="badge yourturn">${L.turns.length}</span></h2>
      <ul class="tablelist">${L.turns.filter((y) => !mine.some((x) => x.table === y.table)).map((y) => html`<li key=${y.table}>
        <span><b><${Name} name=${y.name} /></b><span class="muted"> seat ${y.seat + 1}</span></span>
        <a href=${`/t/${y.table}`} onClick=${nav}>open</a></li>`)}</ul></section>` : ""}
    ${prof && L.mail && L.mail.available ? html`<${MailForm} prof=${prof} />` : ""}
    <section class="panel" aria-labelledby="seats-h"><h2 id="seats-h">Open seats</h2>
      ${L.waiting && L.waiting.length ? html`<div class="field"><label for="join-name">Your name at the table</label>
        <input id="join-name" maxlength="40" placeholder=${prof ? prof.name : "your name"} value=${L.joinName}
          onInput=${(e) => { L.joinName = e.target.value; }} /></div>` : ""}
      <ul class="tablelist" data-testid="waiting-tables">${L.waiting === null ? html`<li class="muted">loading…</li>`
        : L.waiting.length ? L.waiting.map((t) => {
          const open = t.seats.filter((x) => x.kind === "open").length;
          return html`<li key=${t.id} data-table=${t.id}><span><b><${Name} name=${t.name} /></b>
          <span class="muted"> ${open} of ${t.seats.length} seats open · first to ${t.rules.victory_ct} CT</span> <${Tags} t=${t} /><span class="muted">
            ${t.seats.filter((x) => x.kind !== "open").length ? html` · with ${t.seats.filter((x) => x.kind !== "open").map((x, k) => html`${k ? ", " : ""}<${Name} name=${x.name} />`)}` : ""}
            ${t.abandoned ? html` · <span class="badge">abandoned</span>` : ""}</span></span>
          <button type="button" class="primary" data-testid="take-seat" onClick=${() => take(t)}>Take a seat</button></li>`;
        }) : html`<li class="muted">No table is waiting for players.</li>`}</ul>
      <p id="terr" class="error" role="alert" tabindex="-1" data-testid="take-error">${L.takeError}</p></section>
    <section class="panel" aria-labelledby="open-h"><h2 id="open-h">Being played</h2>
      <ul class="tablelist" data-testid="open-tables">${L.open === null ? html`<li class="muted">loading…</li>`
        : L.open.length ? L.open.map((t) => html`<li key=${t.id}><span><b><${Name} name=${t.name} /></b>
          <span class="muted"> ${t.seats.length} seats · turn ${t.turn} · first to ${t.rules.victory_ct} CT</span> <${Tags} t=${t} />
          ${t.abandoned ? html` <span class="badge" title="nobody has played here for a while">abandoned</span>` : ""}</span>
          <a href=${`/t/${t.id}`} onClick=${nav}>watch</a></li>`) : html`<li class="muted">No table is being played.</li>`}</ul></section>
  </div>`;
}

/** The rule set a rated table plays: the one the server names, else the one chosen (the
 *  server refuses any but its rated rule set, and says which that is). */
const ratedRules = () => META.rated_rules || lobbyState.rules;

/** A table's kind in the lobby's lists: rated, or practice (its seed public, hints offered). */
function Tags({ t }) {
  return html`${t.rated ? html`<span class="badge rated" data-testid="tag-rated">rated</span>` : ""}${t.turn_based
    ? html`<span class="badge" data-testid="tag-turn-based" title="a clock in days: play at your own pace">turn-based</span>` : ""}${t.practice
    ? html`<span class="badge practice" data-testid="tag-practice" title=${`unrated; seed ${t.seed}`}>practice</span>` : ""}`;
}

function Created({ t }) {
  const abs = (p) => location.origin + p;
  const copy = (text, e) => {
    const btn = e.currentTarget;
    const done = () => { btn.textContent = "Copied"; setTimeout(() => { btn.textContent = "Copy"; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, () => {});
    else { const inp = btn.parentElement.querySelector("input"); inp.select(); try { document.execCommand("copy"); done(); } catch (x) { /* shown to copy by hand */ } }
  };
  return html`<section class="panel" aria-labelledby="created-h" data-testid="created">
    <h2 id="created-h" tabindex="-1">Table “<${Name} name=${t.name} />” is ready</h2>
    ${t.practice ? html`<p class="practicebox" data-testid="created-practice"><b>Practice table</b> (unrated, hints offered) · seed <span data-testid="created-seed">${t.seed}</span></p>` : ""}
    <p class="muted">Send each player their own link: it holds their seat.${t.host ? " Open seats are listed in the lobby: anyone may take one. The game starts when they are all taken, or when you start it from the table." : ""}</p>
    ${t.seats.map((s) => s.invite ? html`<div class="link" key=${s.seat}>
      <label for=${`invite-${s.seat}`}>Seat ${s.seat + 1}: <${Name} name=${s.name} /></label>
      <div class="row"><input id=${`invite-${s.seat}`} readonly value=${abs(s.invite)} data-testid=${`invite-${s.seat}`} />
        <button type="button" onClick=${(e) => copy(abs(s.invite), e)}>Copy</button>
        <a href=${s.invite} data-testid=${`play-${s.seat}`} onClick=${nav}>play this seat</a></div></div>`
      : html`<div class="link muted" key=${s.seat}>Seat ${s.seat + 1}: ${s.kind === "open" ? "open" : html`<${Name} name=${s.name} /> (bot)`}</div>`)}
    <p>Spectators: <a href=${t.spectate} onClick=${nav}>${abs(t.spectate)}</a></p>
  </section>`;
}

/** Turn mails: the profile's address (a confirmation mail is sent to it first; shown to nobody else). */
function MailForm({ prof }) {
  const L = lobbyState;
  const save = async (e, address) => {
    e.preventDefault();
    try {
      L.mail = await api("/api/profiles/me/mail", { key: prof.key, address });
      L.mailNote = address ? "A confirmation mail is on its way: open its link to start the turn mails." : "No more turn mails.";
    } catch (err) { L.mailNote = err.message; }
    draw();
  };
  return html`<section class="panel" aria-labelledby="mail-h" data-testid="mail-form"><h2 id="mail-h">Turn mails</h2>
    <p class="muted">A mail when it is your turn at a turn-based table and you are away (never shown to other players; every mail has a one-click unsubscribe link).
      ${L.mail.address ? html` Now: ${L.mail.address} (${L.mail.confirmed ? "confirmed" : "waiting for confirmation"}).` : ""}</p>
    <form class="row" onSubmit=${(e) => save(e, L.mailAddress.trim())}>
      <label for="mail-addr" class="sr-only">E-mail address</label>
      <input id="mail-addr" type="email" maxlength="254" placeholder="you@example.org" value=${L.mailAddress}
        onInput=${(e) => { L.mailAddress = e.target.value; }} />
      <button type="submit">Send me turn mails</button>
      ${L.mail.address ? html`<button type="button" onClick=${(e) => save(e, "")}>Stop</button>` : ""}</form>
    <p role="status">${L.mailNote}</p></section>`;
}

async function refreshOpen() {
  const prof = myProfile();
  if (prof) {
    try { lobbyState.turns = await api("/api/profiles/me/turns", { key: prof.key }); } catch (e) { lobbyState.turns = []; }
    if (lobbyState.mail === null) {
      try { lobbyState.mail = await api("/api/profiles/me/mail", { key: prof.key }); } catch (e) { lobbyState.mail = null; }
    }
  }
  try { lobbyState.open = await api("/api/tables"); } catch (e) { lobbyState.open = []; }
  try { lobbyState.waiting = await api("/api/tables?status=open"); } catch (e) { lobbyState.waiting = []; }
  if (!current && screen === "lobby") draw();
}

function nav(e) {
  if (e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
  e.preventDefault();
  history.pushState({}, "", e.currentTarget.getAttribute("href"));
  route();
}

// ---------------------------------------------------------------- routing and drawing
let current = null;
let lobbyTimer = null;
let screen = "lobby";
let screenArg = null;

export function draw() {
  if (current) render(html`<${TableScreen} conn=${current} />`, $app);
  else if (screen === "profile") render(html`<${ProfilePage} redraw=${draw} />`, $app);
  else if (screen === "player") render(html`<${PublicProfile} id=${screenArg} redraw=${draw} />`, $app);
  else if (screen === "leaderboard") render(html`<${Leaderboard} redraw=${draw} />`, $app);
  else render(html`<${Lobby} />`, $app);
  if (current) current.afterDraw();
}

const PAGES = { "/profile": ["profile", "Your profile"], "/restore": ["profile", "Your profile"], "/leaderboard": ["leaderboard", "Leaderboard"] };

export function route() {
  if (current) { current.close(); current = null; }
  clearInterval(lobbyTimer);
  const m = /^\/t\/([\w-]+)/.exec(location.pathname);
  render(null, $app);
  $app.textContent = "";
  const p = /^\/p\/([\w-]+)/.exec(location.pathname);
  const known = PAGES[location.pathname];
  if (!m && (known || p)) {
    resetPages();
    [screen, screenArg] = p ? ["player", p[1]] : [known[0], null];
    document.body.dataset.seat = "";
    document.title = `Civ Lite: Ancients — ${p ? "player" : known[1].toLowerCase()}`;
    setStatus(p ? "player" : known[1].toLowerCase());
    draw();
    if (location.pathname === "/restore") restore(draw);
    return;
  }
  screen = "lobby";
  if (!m) {
    document.body.dataset.seat = "";
    document.title = "Civ Lite: Ancients — lobby";
    setStatus("lobby");
    draw();
    refreshOpen();
    lobbyTimer = setInterval(refreshOpen, 5000);
    return;
  }
  const id = m[1];
  const k = /k=([\w-]+)/.exec(location.hash);
  const token = k ? k[1] : null;
  if (token) localStorage.setItem(`civlite.token.${id}`, token);
  const replay = new URLSearchParams(location.search).has("replay");
  current = new TableConn(id, token, { draw, setStatus, route, rememberSeat, replay });
  draw();
}

window.addEventListener("popstate", route);
// links between the pages move without reloading (a modified click opens as usual)
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-nav]");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
  e.preventDefault();
  history.pushState({}, "", a.getAttribute("href"));
  route();
});
(async () => {
  try {
    setMeta(await api("/api/meta"));
  } catch (e) {
    $app.textContent = "";
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `Cannot reach the server: ${clean(e.message)}`;
    $app.append(p);
    return;
  }
  route();
  // a profile whose key was replaced on another device is signed out here (api() forgets it)
  const prof = myProfile();
  if (prof) api("/api/profiles/me", { key: prof.key }).catch((e) => { if (e.code === "bad_key") draw(); });
})();
