// Civ Lite: Ancients — browser client (plain ES modules, no build step, works offline).
// The page is drawn with Preact + htm (vendored, one file): updates change the page in place,
// so keyboard focus stays where it was. Everything shown comes from the server's messages.
import { html, render, api, setMeta, META, Name, clean } from "./ui.js";
import { TableConn, TableScreen } from "./table.js";

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
const lobbyState = { n: 2, seats: [], rules: "default", victory: null, clock: "", name: "", error: "", created: null, open: null };

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
    const body = {
      name: L.name.trim(),
      seats: seats.map((s) => (s.kind === "human" ? { kind: "human", name: s.name.trim() || null }
        : { kind: "bot", bot: s.kind.slice(4), name: s.name.trim() || null })),
      rules: L.rules, victory_ct: +victory || null, clock: L.clock ? +L.clock : null,
    };
    try {
      L.created = await api("/api/tables", body);
      refreshOpen();
    } catch (err) { L.error = err.message; }
    draw();
    document.getElementById(L.error ? "cerr" : "created-h")?.focus();
  };
  const mine = mySeats();
  return html`<div class="lobby">
    <h1 class="lobby-h" data-testid="lobby-h">Lobby: start a table, or join one</h1>
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
            <select id="rules" value=${L.rules} onChange=${(e) => { L.rules = e.target.value; L.victory = null; draw(); }}>
              ${Object.entries(rs).map(([k, r]) => html`<option value=${k}>${k} (first to ${r.victory_ct} CT)</option>`)}</select></div>
          <div class="field"><label for="victory">Victory target (CT)</label>
            <input id="victory" type="number" min="1" max="200" value=${victory} onInput=${(e) => { L.victory = e.target.value; }} /></div>
          <div class="field"><label for="clock">Turn clock</label>
            <select id="clock" value=${L.clock} onChange=${set("clock")}>
              <option value="">none</option><option value="30">30 s</option><option value="60">1 min</option>
              <option value="120">2 min</option><option value="300">5 min</option></select></div>
        </div>
        <fieldset class="seats" id="seats"><legend>Players</legend>
          ${seats.map((s, i) => html`<div class="seatrow" data-seat=${i} key=${i}>
            <span class="seatno">Seat ${i + 1}</span>
            <label class="sr-only" for=${`kind-${i}`}>Seat ${i + 1} player</label>
            <select id=${`kind-${i}`} class="kind" data-testid=${`seat-kind-${i}`} value=${s.kind}
              onChange=${(e) => { s.kind = e.target.value; draw(); }}>
              <option value="human">Human</option>
              ${(META.levels || []).map((l) => html`<option value=${`bot:${l.name}`}>${levelLabel(l)}</option>`)}
              ${META.bots.filter((b) => !(META.levels || []).some((l) => l.name === b))
                .map((b) => html`<option value=${`bot:${b}`}>Bot: ${b}</option>`)}</select>
            <label class="sr-only" for=${`sname-${i}`}>Seat ${i + 1} name</label>
            <input id=${`sname-${i}`} class="sname" maxlength="40" value=${s.name}
              placeholder=${i === 0 ? "your name" : "name (optional)"} onInput=${(e) => { s.name = e.target.value; }} />
          </div>`)}
        </fieldset>
        <div class="row"><button type="submit" class="primary big" id="create" data-testid="create-table">Create table</button></div>
        <p id="cerr" class="error" role="alert" tabindex="-1" data-testid="create-error">${L.error}</p>
      </form>
    </section>
    ${L.created ? html`<${Created} t=${L.created} />` : ""}
    ${mine.length ? html`<section class="panel" aria-labelledby="mine-h" data-testid="my-tables"><h2 id="mine-h">Your seats</h2>
      <ul class="tablelist">${mine.map((x) => html`<li key=${`${x.table}-${x.seat}`}><span><b><${Name} name=${x.name} /></b>
        <span class="muted"> seat ${x.seat + 1}</span></span><a href=${`/t/${x.table}#k=${x.token}`} onClick=${nav}>resume</a></li>`)}</ul></section>` : ""}
    <section class="panel" aria-labelledby="open-h"><h2 id="open-h">Open tables</h2>
      <ul class="tablelist" data-testid="open-tables">${L.open === null ? html`<li class="muted">loading…</li>`
        : L.open.length ? L.open.map((t) => html`<li key=${t.id}><span><b><${Name} name=${t.name} /></b>
          <span class="muted"> ${t.seats.length} seats · turn ${t.turn} · first to ${t.rules.victory_ct} CT</span></span>
          <a href=${`/t/${t.id}`} onClick=${nav}>watch</a></li>`) : html`<li class="muted">No table is being played.</li>`}</ul></section>
  </div>`;
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
    <p class="muted">Send each player their own link: it holds their seat.</p>
    ${t.seats.map((s) => s.invite ? html`<div class="link" key=${s.seat}>
      <label for=${`invite-${s.seat}`}>Seat ${s.seat + 1}: <${Name} name=${s.name} /></label>
      <div class="row"><input id=${`invite-${s.seat}`} readonly value=${abs(s.invite)} data-testid=${`invite-${s.seat}`} />
        <button type="button" onClick=${(e) => copy(abs(s.invite), e)}>Copy</button>
        <a href=${s.invite} data-testid=${`play-${s.seat}`} onClick=${nav}>play this seat</a></div></div>`
      : html`<div class="link muted" key=${s.seat}>Seat ${s.seat + 1}: <${Name} name=${s.name} /> (bot)</div>`)}
    <p>Spectators: <a href=${t.spectate} onClick=${nav}>${abs(t.spectate)}</a></p>
  </section>`;
}

async function refreshOpen() {
  try { lobbyState.open = await api("/api/tables"); } catch (e) { lobbyState.open = []; }
  if (!current) draw();
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

export function draw() {
  if (current) render(html`<${TableScreen} conn=${current} />`, $app);
  else render(html`<${Lobby} />`, $app);
  if (current) current.afterDraw();
}

export function route() {
  if (current) { current.close(); current = null; }
  clearInterval(lobbyTimer);
  const m = /^\/t\/([\w-]+)/.exec(location.pathname);
  render(null, $app);
  $app.textContent = "";
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
})();
