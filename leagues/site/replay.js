// The replay viewer: loads ONE game from the one chunk that holds it (games/chunk-<k>.js sets
// window.HEXARENA_CHUNK, so it works from file://; only that game's line of JSON is parsed)
// and draws it as SVG. Cell ownership is recomputed from the geometry and the seat of each move, so the
// final scores shown are an independent check of the record's result.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const LETTERS = "ABCD";
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function html(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function fail(message) {
    $("loading").hidden = true;
    const box = $("error");
    box.textContent = message;
    box.hidden = false;
  }

  function formatMs(ms) {
    if (ms >= 1000) return (ms / 1000).toFixed(2) + " s";
    if (ms >= 10) return ms.toFixed(0) + " ms";
    return ms.toFixed(1) + " ms";
  }

  // Precompute, for every move, the cells it closed (geometry only: a cell is closed when all its lines are drawn).
  function analyse(game) {
    const board = game.board;
    const lineCells = board.lines.map(() => []);
    board.cells.forEach((cell, c) => cell.forEach((line) => lineCells[line].push(c)));
    const drawn = new Uint8Array(board.lines.length);
    startLines(game).forEach((line) => { drawn[line] = 1; });
    const closed = game.moves.map((move) => {
      drawn[move.line] = 1;
      return lineCells[move.line].filter((c) => board.cells[c].every((line) => drawn[line]));
    });
    return { lineCells, closed };
  }

  // Lines drawn before the first move: the pre-drawn border, then the record's start position (its opening).
  function startLines(game) {
    return (game.board.predrawn || []).concat(game.opening || []);
  }

  function polygon(board, cell) {
    // the corner between consecutive sides (cells list their lines clockwise)
    const corners = cell.map((line, i) => {
      const next = board.lines[cell[(i + 1) % cell.length]];
      const [a, b] = board.lines[line];
      return next.includes(a) ? a : b;
    });
    return corners;
  }

  function start(game) {
    const board = game.board;
    const sx = board.geometry === "hex" ? Math.sqrt(3) : 2.2;
    const sy = board.geometry === "hex" ? 1 : 2.2;
    const pt = (d) => [board.dots[d][0] * sx, board.dots[d][1] * sy];
    const xs = board.dots.map((d) => d[0] * sx);
    const ys = board.dots.map((d) => d[1] * sy);
    const pad = 0.8;
    const svg = $("board");
    svg.setAttribute("viewBox", [Math.min(...xs) - pad, Math.min(...ys) - pad,
      Math.max(...xs) - Math.min(...xs) + 2 * pad, Math.max(...ys) - Math.min(...ys) + 2 * pad].join(" "));

    let { closed } = analyse(game);
    const predrawn = new Set(startLines(game));
    const cellNodes = [], labelNodes = [], lineNodes = [];
    const cellLayer = el("g"), lineLayer = el("g"), dotLayer = el("g"), labelLayer = el("g");
    board.cells.forEach((cell, c) => {
      const corners = polygon(board, cell).map(pt);
      const node = el("polygon", { class: "cell", points: corners.map((p) => p.join(",")).join(" ") });
      node.appendChild(el("title", {}, "cell " + c));
      cellLayer.appendChild(node);
      cellNodes.push(node);
      const cx = corners.reduce((s, p) => s + p[0], 0) / corners.length;
      const cy = corners.reduce((s, p) => s + p[1], 0) / corners.length;
      const label = el("text", { class: "owner-label", x: cx, y: cy }, "");
      labelLayer.appendChild(label);
      labelNodes.push(label);
    });
    board.lines.forEach(([a, b], i) => {
      const [x1, y1] = pt(a), [x2, y2] = pt(b);
      const node = el("line", { class: "line", x1, y1, x2, y2 });
      node.appendChild(el("title", {}, "line " + i));
      lineLayer.appendChild(node);
      lineNodes.push(node);
    });
    board.dots.forEach((_, d) => {
      const [cx, cy] = pt(d);
      dotLayer.appendChild(el("circle", { class: "dot", cx, cy, r: 0.12 }));
    });
    svg.replaceChildren(cellLayer, lineLayer, dotLayer, labelLayer);

    // scoreboard
    const scoreNodes = game.seats.map((name, seat) => {
      const li = html("li");
      li.dataset.seat = seat;
      const who = html("span");
      who.append(html("span", "", "chip seat" + seat), html("span", LETTERS[seat] + " · " + name));
      const version = (game.versions || [])[seat];  // the exact version; records of older releases have none
      if (version && version !== name) who.append(html("span", " " + version.slice(version.indexOf("@")), "muted version"));
      const score = html("span", "0", "score");
      li.append(who, score);
      $("scores").appendChild(li);
      return { li, score };
    });

    // move list, with faults shown where they happened
    const faultsAt = {};
    (game.result.forfeits || []).forEach((f) => { (faultsAt[f.move] = faultsAt[f.move] || []).push(f); });
    const rows = [];
    const body = $("moves");
    const faultRow = (f) => {
      const tr = html("tr", undefined, "fault");
      const td = html("td", LETTERS[f.seat] + " " + game.seats[f.seat] + " — " + f.reason + (f.detail ? ": " + f.detail : ""));
      td.colSpan = 6;
      tr.appendChild(td);
      body.appendChild(tr);
    };
    const addRow = (move, i) => {
      const tr = html("tr");
      tr.dataset.move = i + 1;
      const seat = html("td");
      seat.append(html("span", "", "chip seat" + move.seat), document.createTextNode(LETTERS[move.seat]));
      tr.append(html("td", String(i + 1), "num"), seat, html("td", String(move.line), "num"),
        html("td", closed[i].length ? "+" + closed[i].length : "", "num"),
        html("td", formatMs(move.ms) + (move.substituted ? " (sub)" : ""), "num think"),
        html("td", move.cpu_ms === undefined || move.cpu_ms === null ? "—" : formatMs(move.cpu_ms), "num cpu"));
      tr.addEventListener("click", () => show(i + 1));
      body.appendChild(tr);
      rows.push(tr);
    };
    game.moves.forEach((move, i) => {
      (faultsAt[i] || []).forEach(faultRow);
      addRow(move, i);
    });
    (faultsAt[game.moves.length] || []).forEach(faultRow);

    // each seat's log of the game (log.html), opened at the move in view: for the seats whose log the site has
    const logLinks = (game.logs || []).filter((seat) => game.file && seat >= 0 && seat < game.seats.length).map((seat) => {
      const link = html("a", LETTERS[seat] + " " + game.seats[seat]);
      link.dataset.seat = seat;
      return link;
    });
    if (logLinks.length) {
      const box = $("logs");
      box.append(document.createTextNode("Logs at this move: "));
      logLinks.forEach((link, k) => box.append(...(k ? [document.createTextNode(" · "), link] : [link])));
      box.hidden = false;
    }

    // the solver's analysis and the bots' notes (insight.js), when the site has them
    const insight = window.HEXARENA_INSIGHT ? window.HEXARENA_INSIGHT.attach(game, rows) : null;
    let total = game.moves.length;
    const scrub = $("scrub");
    scrub.max = total;
    let position = 0, timer = null;

    function show(k) {
      position = Math.max(0, Math.min(total, k));
      const owner = new Array(board.cells.length).fill(-1);
      const drawnBy = new Array(board.lines.length).fill(-2);
      predrawn.forEach((line) => { drawnBy[line] = -1; });
      for (let i = 0; i < position; i++) {
        const move = game.moves[i];
        drawnBy[move.line] = move.seat;
        closed[i].forEach((c) => { owner[c] = move.seat; });
      }
      const fresh = position > 0 ? new Set(closed[position - 1]) : new Set();
      const last = position > 0 ? game.moves[position - 1].line : -1;
      lineNodes.forEach((node, line) => {
        const by = drawnBy[line];
        node.setAttribute("class", "line" + (by > -2 ? " drawn" : "") + (by === -1 ? " predrawn" : "") +
          (by >= 0 ? " by" + by : "") + (line === last ? " last" : ""));
      });
      const scores = game.seats.map(() => 0);
      cellNodes.forEach((node, c) => {
        const o = owner[c];
        if (o >= 0) scores[o]++;
        node.setAttribute("class", "cell" + (o >= 0 ? " owner" + o : "") + (fresh.has(c) ? " fresh" : ""));
        labelNodes[c].textContent = o >= 0 ? LETTERS[o] : "";
      });
      const toMove = position < total ? game.moves[position].seat : -1;
      scoreNodes.forEach(({ li, score }, seat) => {
        score.textContent = String(scores[seat]);
        li.classList.toggle("to-move", seat === toMove);
      });
      $("counter").textContent = "Move " + position + " / " + total;
      if (document.activeElement !== $("jump-to")) $("jump-to").value = position;
      scrub.value = position;
      rows.forEach((tr, i) => tr.classList.toggle("current", i === position - 1));
      if (position > 0) {
        const row = rows[position - 1], box = row.closest(".moves");
        if (row.offsetTop < box.scrollTop || row.offsetTop > box.scrollTop + box.clientHeight - row.offsetHeight) {
          box.scrollTop = row.offsetTop - box.clientHeight / 2;
        }
      }
      if (insight) insight.show(position);
      logLinks.forEach((link) => {
        link.href = "log.html?game=" + encodeURIComponent(game.file) + "&seat=" + link.dataset.seat +
          (position ? "&move=" + position : "");
      });
      $("first").disabled = $("back").disabled = position === 0;
      $("forward").disabled = $("last").disabled = position === total;
      if (position === total) stop();
    }

    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      $("play").textContent = "▶ Play";
    }

    function play() {
      if (timer !== null) return stop();
      if (position === total) show(0);
      $("play").textContent = "❚❚ Pause";
      timer = setInterval(() => show(position + 1), Number($("speed").value));
    }

    $("first").addEventListener("click", () => { stop(); show(0); });
    $("back").addEventListener("click", () => { stop(); show(position - 1); });
    $("forward").addEventListener("click", () => { stop(); show(position + 1); });
    $("last").addEventListener("click", () => { stop(); show(total); });
    $("play").addEventListener("click", play);
    $("speed").addEventListener("change", () => { if (timer !== null) { stop(); play(); } });
    scrub.addEventListener("input", () => { stop(); show(Number(scrub.value)); });
    $("jump").addEventListener("submit", (event) => {
      event.preventDefault();
      stop();
      show(Number($("jump-to").value));
    });
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
      const keys = { ArrowLeft: () => show(position - 1), ArrowRight: () => show(position + 1),
        Home: () => show(0), End: () => show(total), " ": play };
      if (keys[event.key]) { event.preventDefault(); if (event.key !== " ") stop(); keys[event.key](); }
    });

    // header and result
    const cfg = game.config;
    document.title = game.seats.join(" vs ") + " · " + game.id;
    $("title").textContent = game.seats.join(" vs ");
    $("meta").textContent = [game.config_label, game.time_control && "time " + game.time_control,
      game.started && game.started.replace("T", " ").slice(0, 19), "game " + game.id,
      game.seed !== null && game.seed !== undefined ? "seed " + game.seed : ""].filter(Boolean).join(" · ");
    $("result").textContent = game.summary;
    $("termination").textContent = game.result.termination === "completed"
      ? "completed: every line drawn" + (cfg.misere ? " (misère: fewest cells wins)" : "")
      : game.result.termination + (game.result.offender !== null ? " by " + LETTERS[game.result.offender] + " " +
        game.seats[game.result.offender] : "");
    $("final-scores").textContent = "final scores " + game.result.scores.join("–");
    $("jump-to").max = total;
    $("loading").hidden = true;
    $("viewer").hidden = false;
    const move = new URLSearchParams(location.search).get("move") || "0";  // a number, or "end": the final position
    const asked = move === "end" ? total : parseInt(move, 10);
    show(Number.isNaN(asked) ? 0 : asked);

    // a game in progress (live.js, on a served site): one more move; a viewer at the last move follows it
    function append(move) {
      const following = position === total;
      game.moves.push(move);
      closed = analyse(game).closed;
      addRow(move, total);
      total = scrub.max = $("jump-to").max = game.moves.length;
      show(following ? total : position);
    }
    return { append };
  }

  window.HEXARENA_REPLAY = { start };
  if (window.HEXARENA_LIVE && window.HEXARENA_LIVE.spectating) return;  // live.js loads the game in progress

  // The chunk of a game: crc32 of its file stem (ASCII) mod the number of chunks, as leagues/site/publish.py writes them.
  function crc32(text) {
    let crc = 0xffffffff;
    for (let i = 0; i < text.length; i++) {
      crc ^= text.charCodeAt(i);
      for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
    }
    return (crc ^ 0xffffffff) >>> 0;
  }

  // A chunk is a list of blocks [records, entries]: records a text of one record's JSON a line (after a first
  // empty line), entries [stem, {line, config_label, summary, analysis, logs}] (leagues/site/publish.py's Chunks).
  function open(blocks, file) {
    let found, text;
    for (const [records, entries] of blocks || []) {
      const entry = entries.find((e) => e[0] === file);
      if (entry) {
        found = entry[1];
        text = records.split("\n")[found.line + 1];
        break;
      }
    }
    if (found === undefined) return fail("No such game in this site: " + file);
    let game;
    try {
      game = Object.assign(JSON.parse(text), { config_label: found.config_label, summary: found.summary,
        analysis: found.analysis || null, logs: found.logs || [], file });
    } catch (error) {
      return fail("The data of game " + file + " is garbled: publish the league again.");
    }
    game.board = (window.HEXARENA_BOARDS || {})[game.config_label];
    if (!game.board) return fail("No board for " + game.config_label + ": publish the league again.");
    start(game);
  }

  const file = new URLSearchParams(location.search).get("game") || "";
  if (!/^[A-Za-z0-9_.-]+$/.test(file)) {
    fail(file ? "No such game: " + file : "No game chosen: open a game from the games list.");
    return;
  }
  const chunks = (window.HEXARENA_INDEX || {}).chunks || 1;
  const script = document.createElement("script");
  script.src = "games/chunk-" + (crc32(file) % chunks) + ".js";
  script.onload = () => open(window.HEXARENA_CHUNK, file);
  script.onerror = () => fail("No such game in this site: " + file);
  document.head.appendChild(script);
})();
