// Game review and hints in the browser: a finished game's decisions of one seat rated by the
// server (civlite.review: search from that seat's view only), shown in the replay viewer as a
// win-probability chart (SVG drawn here), a table of marks and options, and the mark of the
// step on screen; and, at practice tables, a hint for the decision at hand.
import { html, api, clean } from "./ui.js";

export const MARKS = ["best", "good", "inaccuracy", "mistake", "blunder"];
const SIGN = { best: "", good: "", inaccuracy: "?!", mistake: "?", blunder: "??" };
const KIND = {
  action: "action", meld: "meld", vision: "Vision", foundations: "Foundations", culture_discard: "Culture discard",
  wisdom_discard: "Wisdom discard", setback_discard: "Setback discard", fall_discard: "hand-limit discard",
};

/** An action of a record as words: "Golden Age: Sphinx, Colossus, Pantheon", "pass". */
export function actionText(a, nameOf) {
  if (!a) return "";
  const cards = (a.cards || []).join(", ");
  const who = a.target !== undefined && a.target !== null ? ` → ${nameOf ? nameOf(a.target) : `seat ${a.target + 1}`}` : "";
  switch (a.do) {
    case "pass": return "pass";
    case "take": return `take ${a.card}`;
    case "meld": return `meld (${cards})`;
    case "discard": return `discard ${cards}`;
    default: return `${a.do} ${cards}${who}`;
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The review of ``seat`` at ``conn``'s table: kept on the connection, asked for (POST) and then
 *  polled (GET) until it is done; every change redraws. */
export function startReview(conn, seat) {
  conn.reviews = conn.reviews || {};
  const have = conn.reviews[seat];
  if (have && (have.status === "running" || have.status === "done")) return;
  const r = conn.reviews[seat] = { status: "running", done: 0, total: 0, data: null, error: null };
  const url = `/api/tables/${conn.id}/reviews/${seat}`;
  const take = (out) => {
    if (out.status === "done") { Object.assign(r, { status: "done", data: out.review }); conn.say?.("The review is ready."); }
    else if (out.status === "failed") Object.assign(r, { status: "failed", error: out.error });
    else Object.assign(r, { done: out.done, total: out.total });
    conn.draw();
    return r.status === "running";
  };
  const poll = async () => {
    try { if (take(await api(url))) setTimeout(poll, 400); }
    catch (e) { Object.assign(r, { status: "failed", error: e.message }); conn.draw(); }
  };
  api(url, {}).then((out) => { if (take(out)) setTimeout(poll, 300); })
    .catch((e) => { Object.assign(r, { status: "failed", error: e.message }); conn.draw(); });
  conn.draw();
}

/** The end screen's button: open the replay as this seat and start its review. */
export function ReviewButton({ conn }) {
  const seat = conn.seat ?? 0;
  return html`<button type="button" class="big" data-testid="review-open"
    onClick=${async () => { startReview(conn, seat); await conn.openReplay(conn.seat === null ? seat : conn.seat); }}>
    ${conn.seat === null ? "Review the game" : "Review my game"}</button>`;
}

/** The win-probability chart: one point per decision, coloured by its mark, 0..100%. */
export function WinChart({ review, nameOf, current }) {
  const win = review.win || [];
  const W = 640, H = 180, L = 40, R = 10, T = 12, B = 26;
  const n = win.length;
  const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (p) => T + (1 - p) * (H - T - B);
  const path = win.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
  const who = nameOf(review.seat);
  const label = n ? `${who}'s chance of winning after each of ${n} decisions: ${Math.round(100 * win[0])}% after the first, `
    + `${Math.round(100 * win[n - 1])}% after the last` : "no decision";
  return html`<figure class="winchart" data-testid="review-chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${label} preserveAspectRatio="none">
      <title>${label}</title>
      ${[0, 0.5, 1].map((p) => html`<g key=${p}><line class="grid" x1=${L} x2=${W - R} y1=${y(p)} y2=${y(p)} />
        <text class="axis" x=${L - 6} y=${y(p) + 4} text-anchor="end">${Math.round(100 * p)}%</text></g>`)}
      <text class="axis" x=${L} y=${H - 6}>first decision</text>
      <text class="axis" x=${W - R} y=${H - 6} text-anchor="end">last</text>
      <path class="line" d=${path} fill="none" />
      ${review.decisions.map((d, i) => html`<circle key=${i} class=${`pt ${d.mark}${current === d.decision ? " now" : ""}`}
        cx=${x(i)} cy=${y(win[i])} r=${current === d.decision ? 6 : 4}><title>turn ${d.turn}: ${d.mark}, ${Math.round(100 * win[i])}%</title></circle>`)}
    </svg>
    <figcaption class="muted">${label}.</figcaption>
  </figure>`;
}

function counts(review) {
  const c = Object.fromEntries(MARKS.map((m) => [m, 0]));
  for (const d of review.decisions) if (d.options.length > 1) c[d.mark] += 1;
  return MARKS.map((m) => `${c[m]} ${m}`).join(", ");
}

/** One decision's options, best first, with the chosen one marked. */
function Options({ d, nameOf }) {
  return html`<ol class="options">${d.options.map((o, k) => html`<li key=${k} class=${same(o.action, d.chosen) ? "chosen" : ""}>
    ${actionText(o.action, nameOf)} <b>${Math.round(100 * o.win)}%</b>${same(o.action, d.chosen) ? " (chosen)" : ""}</li>`)}</ol>`;
}

/** The mark of the step on screen, when the reviewed seat decided it (step k: after action k-1). */
export function ReplayMark({ conn, step, nameOf }) {
  const r = conn.replay;
  const rev = r && conn.reviews && r.seat !== null ? conn.reviews[r.seat] : null;
  if (!rev || rev.status !== "done" || step < 1) return "";
  const d = rev.data.decisions.find((e) => e.decision === step - 1);
  if (!d) return "";
  const best = d.options[0];
  return html`<section class=${`stepmark ${d.mark}`} data-testid="replay-mark" aria-label="This decision's review">
    <p><b class=${`mark ${d.mark}`}>${d.options.length > 1 ? `${d.mark}${SIGN[d.mark]}` : "the only option"}</b>
      ${d.options.length > 1 ? ` · lost ${Math.round(100 * d.loss)}% · ` : " · "}${Math.round(100 * (d.options.find((o) => same(o.action, d.chosen)) || best).win)}% to win after it
      ${d.mark !== "best" ? html` · best: ${actionText(best.action, nameOf)} (${Math.round(100 * best.win)}%)` : ""}</p>
    <details><summary>all ${d.options.length} options</summary><${Options} d=${d} nameOf=${nameOf} /></details>
  </section>`;
}

/** The review in the replay viewer: the seat watched (any seat, once the game is over). */
export function ReviewPanel({ conn, nameOf, go }) {
  const r = conn.replay;
  if (!r) return "";
  if (r.seat === null) {
    return html`<section class="reviewpanel" aria-labelledby="review-h"><h2 id="review-h">Review</h2>
      <p class="muted">Choose a seat to watch to review its decisions.</p></section>`;
  }
  const rev = conn.reviews && conn.reviews[r.seat];
  const who = nameOf(r.seat);
  if (!rev) {
    return html`<section class="reviewpanel" aria-labelledby="review-h"><h2 id="review-h">Review</h2>
      <p><button type="button" data-testid="review-start" onClick=${() => startReview(conn, r.seat)}>Review ${clean(who)}'s decisions</button></p></section>`;
  }
  if (rev.status === "running") {
    return html`<section class="reviewpanel" aria-labelledby="review-h" aria-busy="true"><h2 id="review-h">Review of ${clean(who)}</h2>
      <p role="status" data-testid="review-progress">Rating every decision from what ${clean(who)} could see…
        ${rev.total ? `${rev.done} of ${rev.total}` : ""}</p>
      <progress max=${rev.total || 1} value=${rev.done} aria-label="decisions rated"></progress></section>`;
  }
  if (rev.status === "failed") {
    return html`<section class="reviewpanel" aria-labelledby="review-h"><h2 id="review-h">Review of ${clean(who)}</h2>
      <p class="error" role="alert" data-testid="review-error">${rev.error}</p>
      <button type="button" onClick=${() => { delete conn.reviews[r.seat]; startReview(conn, r.seat); }}>Try again</button></section>`;
  }
  const review = rev.data;
  return html`<section class="reviewpanel" aria-labelledby="review-h" data-testid="review">
    <h2 id="review-h">Review of ${clean(who)}</h2>
    <p data-testid="review-counts">${counts(review)}</p>
    <${WinChart} review=${review} nameOf=${nameOf} current=${r.step - 1} />
    <table class="marks" data-testid="review-marks"><caption class="sr-only">Every decision of ${clean(who)}, rated</caption>
      <thead><tr><th scope="col">Turn</th><th scope="col">Decision</th><th scope="col">Chosen</th><th scope="col">Mark</th><th scope="col">Best option</th><th scope="col">Win after</th></tr></thead>
      <tbody>${review.decisions.map((d, i) => {
        const forced = d.options.length === 1;
        return html`<tr key=${d.decision} class=${r.step - 1 === d.decision ? "now" : ""}>
          <td>${d.turn}</td><td>${KIND[d.kind] || d.kind}</td>
          <td><button type="button" class="linkish" onClick=${() => go(d.decision + 1)} title=${`go to this decision (turn ${d.turn})`}>${actionText(d.chosen, nameOf)}</button></td>
          <td><span class=${`mark ${forced ? "forced" : d.mark}`} data-testid="review-mark">${forced ? "only option" : `${d.mark}${SIGN[d.mark]}`}</span></td>
          <td>${d.mark === "best" ? "" : `${actionText(d.options[0].action, nameOf)} (${Math.round(100 * d.options[0].win)}%)`}</td>
          <td>${Math.round(100 * review.win[i])}%</td></tr>`;
      })}</tbody></table>
  </section>`;
}

/** At a practice table, the seat to decide may ask for the best option (the server refuses
 *  hints elsewhere while the game runs). */
export function HintButton({ conn }) {
  if (!conn.table?.practice || !conn.token || conn.state?.over) return "";
  const coach = html`<${CoachNotes} conn=${conn} />`;
  const h = conn.hint && conn.hint.decision === conn.decision ? conn.hint : null;
  const ask = async () => {
    conn.hint = { decision: conn.decision, busy: true };
    conn.draw();
    try {
      const out = await api(`/api/tables/${conn.id}/hint`, { token: conn.token });
      conn.hint = { decision: conn.decision, text: `${out.hint.label}: ${out.hint.reason}` };
    } catch (e) { conn.hint = { decision: conn.decision, error: e.message }; }
    conn.draw();
  };
  return html`${coach}<div class="hint" data-testid="hint">
    <button type="button" onClick=${ask} disabled=${h?.busy} aria-busy=${h?.busy ? "true" : "false"}>${h?.busy ? "Thinking…" : "Hint"}</button>
    ${h?.text ? html`<p role="status" data-testid="hint-text">${h.text}</p>` : ""}
    ${h?.error ? html`<p class="error" role="alert">${h.error}</p>` : ""}</div>`;
}

/** The lobby's way in for a new player: a tutorial table (a fixed practice deal against the easy
 *  bot, with a coach). ``rememberSeat`` and ``route`` are the lobby's. */
export function TutorialEntry({ rememberSeat, route }) {
  const start = async () => {
    TUTORIAL.error = "";
    try {
      const t = await api("/api/tutorial", {});
      const invite = t.seats[0].invite;
      rememberSeat(t.id, invite.split("#k=")[1], 0, t.name);
      history.pushState({}, "", invite);
      route();
    } catch (e) { TUTORIAL.error = e.message; route(); }
  };
  return html`<section class="panel tutorial" aria-labelledby="tutorial-h" data-testid="tutorial">
    <h2 id="tutorial-h">New to Civ Lite?</h2>
    <p>Play the tutorial: a short game against a gentle bot, where a coach explains each phase of a turn,
      each ability when you can first use it, and the meld when you are close to one.</p>
    <button type="button" class="big" data-testid="tutorial-start" onClick=${start}>Play the tutorial</button>
    ${TUTORIAL.error ? html`<p class="error" role="alert">${TUTORIAL.error}</p>` : ""}</section>`;
}
const TUTORIAL = { error: "" };

/** The coach's notes shown at a tutorial seat, kept by this browser: the server says each note
 *  once, so a reload shows them again from here. */
const coachKey = (conn) => `civlite.coach.${conn.id}.${conn.seat}`;
const COACH_KEPT = 40;
function keptNotes(conn) {
  try {
    const a = JSON.parse(localStorage.getItem(coachKey(conn)) || "[]");
    return Array.isArray(a) ? a.filter((n) => n && typeof n.key === "string" && typeof n.text === "string") : [];
  } catch (e) { return []; }
}

/** At a tutorial table: the coach's notes so far, newest first; asked for at each new decision. */
export function CoachNotes({ conn }) {
  if (!(conn.table?.practice && conn.table?.name === "Tutorial" && conn.token)) return "";
  conn.coach = conn.coach || { asked: -1, notes: keptNotes(conn) };
  const c = conn.coach;
  if (c.asked !== conn.decision) {
    c.asked = conn.decision;
    api(`/api/tables/${conn.id}/coach`, { token: conn.token }).then((out) => {
      if (!out.notes.length) return;
      const seen = new Set(c.notes.map((n) => n.key));
      c.notes = [...out.notes.reverse().filter((n) => !seen.has(n.key)), ...c.notes].slice(0, COACH_KEPT);
      try { localStorage.setItem(coachKey(conn), JSON.stringify(c.notes)); } catch (e) { /* storage full: this page still shows them */ }
      conn.draw();
    }).catch(() => {});
  }
  if (!c.notes.length) return "";
  return html`<section class="coach" aria-labelledby="coach-h" data-testid="coach" tabindex="0"><h2 id="coach-h">Tutorial</h2>
    <ul>${c.notes.map((n, i) => html`<li key=${n.key} class=${i === 0 ? "new" : ""} data-note=${n.key}>${n.text}</li>`)}</ul></section>`;
}
