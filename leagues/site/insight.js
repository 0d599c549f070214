// The solver's analysis and the bots' own notes in the replay viewer (replay.js calls attach, then show at each
// position): a value bar under the board (seat 0's final margin under perfect play at each position, drawn for
// the seat that is ahead), the losing move and each costly move marked in the move list, the best lines a move
// missed, and each move's notes (INFO). Notes are untrusted text: only ever set as textContent.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const LETTERS = "ABCD";
  const STYLE = ".insight{margin-top:8px}.insight svg{width:100%;height:64px;display:block}" +
    ".insight .bar.ahead0{fill:var(--seat0,#2b6cb0)}.insight .bar.ahead1{fill:var(--seat1,#c05621)}" +
    ".insight .bar.even{fill:#999}.insight .bar.unknown{fill:#ddd}.insight .cursor{fill:none;stroke:#000;stroke-width:.15}" +
    ".insight .axis{stroke:#888;stroke-width:.05}.insight p{margin:4px 0;font-size:13px}" +
    "tr.costly td{background:#fff4e0}tr.losing td{background:#fde2e2;font-weight:600}" +
    ".insight .notes{list-style:none;padding:0;margin:4px 0;font-family:monospace;font-size:12px;white-space:pre-wrap;word-break:break-all}";

  function node(tag, text, cls) {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }

  function svg(tag, attrs) {
    const n = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) n.setAttribute(key, value);
    return n;
  }

  function attach(game, rows) {
    const analysis = game.analysis || null;
    const hasNotes = game.moves.some((m) => m.info && m.info.length);
    if (!analysis && !hasNotes) return null;
    if (!document.getElementById("insight-style")) {
      const style = node("style", STYLE);
      style.id = "insight-style";
      document.head.appendChild(style);
    }
    const box = node("div", undefined, "insight");
    box.id = "insight";
    document.getElementById("board").closest(".card").appendChild(box);
    const misere = !!(game.config && game.config.misere);
    const ahead = (v) => (misere ? -v : v);  // > 0: seat 0 is ahead (under misère seat 0 wants the margin low)
    let cursor = null, bars = [];
    const verdict = node("p", "", "muted");
    verdict.id = "value-now";
    if (analysis) {
      const values = analysis.values, n = values.length;
      const top = Math.max(1, ...values.filter((v) => v !== null).map((v) => Math.abs(v)));
      const chart = svg("svg", { viewBox: "0 0 " + n + " 2", preserveAspectRatio: "none", role: "img",
        "aria-label": "value under perfect play at each position" });
      chart.id = "value-bar";
      chart.appendChild(svg("line", { class: "axis", x1: 0, y1: 1, x2: n, y2: 1 }));
      bars = values.map((v, k) => {
        const h = v === null ? 0.15 : Math.max(0.05, Math.abs(v) / top);
        const a = v === null ? 0 : ahead(v);
        const cls = v === null ? "unknown" : a > 0 ? "ahead0" : a < 0 ? "ahead1" : "even";
        const bar = svg("rect", { class: "bar " + cls, x: k + 0.1, width: 0.8, y: v === null || a >= 0 ? 1 - h : 1, height: h });
        const title = svg("title", {});
        title.textContent = "position " + k + ": " + (v === null ? "not solved within the budget" : "value " + (v > 0 ? "+" : "") + v);
        bar.appendChild(title);
        chart.appendChild(bar);
        return bar;
      });
      cursor = svg("rect", { class: "cursor", x: 0, y: 0.02, width: 1, height: 1.96 });
      chart.appendChild(cursor);
      box.append(node("p", "Value under perfect play (solver; " + analysis.solved_positions + " of " + n +
        " positions solved)", "muted"), chart, verdict);
      analysis.costs.forEach((cost, i) => {
        if (!rows[i]) return;
        if (i === analysis.losing_move) {
          rows[i].classList.add("losing");
          rows[i].title = "the losing move: the loser could still draw before it, not after (cost " + cost + ")";
        } else if (cost) {
          rows[i].classList.add("costly");
          rows[i].title = "cost " + cost + (cost === 1 ? " cell" : " cells") + " under perfect play";
        }
      });
    }
    const missed = node("p", "");
    missed.id = "missed";
    const notesHead = node("p", "", "muted");
    const notes = node("ul", undefined, "notes");
    notes.id = "notes";
    box.append(missed, notesHead, notes);

    function show(position) {
      if (analysis) {
        const v = analysis.values[position];
        cursor.setAttribute("x", position);
        if (v === null || v === undefined) verdict.textContent = "position " + position + ": not solved within the budget";
        else {
          const a = ahead(v), who = a > 0 ? 0 : 1;
          verdict.textContent = "position " + position + ": " + (a === 0 ? "a draw under perfect play"
            : LETTERS[who] + " " + game.seats[who] + " wins by " + Math.abs(v) + " under perfect play") +
            " (value " + (v > 0 ? "+" : "") + v + ")";
        }
      }
      const i = position - 1, move = game.moves[i];
      missed.textContent = "";
      if (analysis && move && analysis.costs[i]) {
        missed.textContent = "Move " + position + " (line " + move.line + ") cost " + analysis.costs[i] +
          (i === analysis.losing_move ? ": the losing move" : "") +
          (analysis.best[i] && analysis.best[i].length ? "; best: line " + analysis.best[i].join(", ") : "");
      }
      const said = (move && move.info) || [];
      notesHead.textContent = move ? (said.length ? LETTERS[move.seat] + " " + game.seats[move.seat] +
        "'s notes on move " + position + ":" : "no notes on move " + position) : "";
      notes.replaceChildren(...said.map((text) => node("li", text)));
    }
    return { show };
  }

  window.HEXARENA_INSIGHT = { attach };
})();
