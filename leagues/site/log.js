// A bot's log of one game, opened at a move: log.html?game=<file>&seat=N&move=K loads logs/<file>.js (it sets
// window.HEXARENA_LOGS: a script, so it works from file://) and lists seat N's log line by line, line L at #L<L>.
// The move in view is marked from the referee's line "--- hexarena: move K, TURN R" of the seat's last TURN at or
// before move K (the other seat's move shows what this one wrote while waiting) up to its next such line
// (leagues/site/logs.py). A log is the bot's untrusted output: it is only ever set as text.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const MARK = /^--- hexarena: move (\d+), TURN (\d+)$/;
  const LETTERS = "ABCD";

  function fail(message) {
    $("loading").hidden = true;
    const box = $("error");
    box.textContent = message;
    box.hidden = false;
  }

  const params = new URLSearchParams(location.search);
  const file = params.get("game") || "", seat = params.get("seat") || "0";
  const asked = parseInt(params.get("move") || "0", 10);
  const move = Number.isNaN(asked) ? 0 : asked;

  function show(data) {
    const entry = data && data.seats && Object.prototype.hasOwnProperty.call(data.seats, seat) ? data.seats[seat] : null;
    if (!entry) return fail("No log of seat " + LETTERS[seat] + " in game " + file + " in this site.");
    const lines = entry.text.split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    const marks = [];
    lines.forEach((line, i) => {
      const found = MARK.exec(line);
      if (found) marks.push({ move: Number(found[1]), request: Number(found[2]), index: i });
    });
    let at = -1;
    marks.forEach((mark, k) => { if (mark.move <= move) at = k; });
    const target = at >= 0 ? marks[at] : null;
    const end = target ? (at + 1 < marks.length ? marks[at + 1].index : lines.length) : -1;
    const list = $("lines");
    const items = lines.map((line, i) => {
      const li = document.createElement("li");
      li.id = "L" + (i + 1);
      li.textContent = line;
      const classes = [];
      if (line.startsWith("--- hexarena: ")) classes.push("referee");
      if (target && i >= target.index && i < end) classes.push("move");
      if (target && i === target.index) classes.push("mark");
      if (classes.length) li.className = classes.join(" ");
      return li;
    });
    list.replaceChildren(...items);
    const who = LETTERS[seat] + " " + entry.bot;
    document.title = who + " · log of " + data.game;
    $("title").textContent = who + ": log of game " + data.game;
    $("meta").textContent = lines.length + (lines.length === 1 ? " line" : " lines");
    $("back").href = "replay.html?game=" + encodeURIComponent(file) + (move ? "&move=" + move : "");
    let where = "";
    if (move > 0) {
      if (target) {
        where = "Move " + move + ": " + (target.move === move ? "this seat's TURN " + target.request
          : "the other seat's move; this seat's last TURN before it was " + target.request + " (move " + target.move + ")") +
          ", line " + (target.index + 1) + " (marked, with what the bot wrote until its next TURN).";
      } else if (marks.length) {
        where = "This seat had no TURN up to move " + move + ": the log is shown from its top.";
      } else {
        where = "This log has no move marks (it was written before the referee marked each TURN): shown from its top.";
      }
    }
    $("where").textContent = where;
    $("loading").hidden = true;
    $("log-view").hidden = false;
    const anchor = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    const focus = anchor || (target ? items[target.index] : null);
    if (focus) focus.scrollIntoView({ block: "start" });
  }

  if (!/^[A-Za-z0-9_.-]+$/.test(file)) return fail(file ? "No such game: " + file : "No game chosen: open a log from a replay.");
  if (!/^[0-3]$/.test(seat)) return fail("No such seat: " + seat + " (seats are 0-3).");
  const script = document.createElement("script");
  script.src = "logs/" + file + ".js";
  script.onload = () => show(window.HEXARENA_LOGS);
  script.onerror = () => fail("No log of game " + file + " in this site (its league may keep its logs private: " +
    "publish_logs = false).");
  document.head.appendChild(script);
})();
