// Live updates of a league's site as `hexarena serve` serves it (the server adds this script to every page;
// a site written by `hexarena publish` has none, so it never tries to reach a server).
//
// It listens to the server's events (api/events). When a game of the league is stored, the server
// re-publishes the league's site and announces `standings`: the page then updates in place, with no reload —
// the standings, ratings and crosstable (or a bot's page) are patched from the freshly published page, the
// games list from the fresh data/games.js. The games page lists the games in progress (api/live/games);
// replay.html?live=GAME follows one of them move by move (the replay viewer's own drawing, fed each move);
// opened just after the game ended it shows the final position (from the server's memory of the game until the
// site has its record, then from the record, at its last move).
// After a dropped connection the browser reconnects and everything is fetched afresh.
(function () {
  "use strict";
  const LETTERS = "ABCD";
  const root = new URL("../../", location.href);  // the pages sit at <root>leagues/NAME/<page>
  const league = decodeURIComponent(location.pathname.split("/").slice(-2)[0]);
  const page = location.pathname.split("/").pop() || "index.html";
  const spectated = page === "replay.html" ? new URLSearchParams(location.search).get("live") : null;
  // read by replay.js (it leaves a spectated game to this script) and by the tests (updates, updated)
  const live = window.HEXARENA_LIVE = { spectating: spectated !== null, updates: 0, updated: null, ended: false };
  const $ = (id) => document.getElementById(id);
  const handlers = {};

  function on(kind, handler) {
    (handlers[kind] = handlers[kind] || []).push(handler);
  }

  function fetchText(url) {
    return fetch(url, { cache: "no-store" }).then((r) => (r.ok ? r.text() : Promise.reject(r.status)));
  }

  function api(path) {
    return fetchText(new URL(path, root)).then(JSON.parse);
  }

  function changed() {
    live.updates += 1;
    live.updated = Date.now();
  }

  function html(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  // ---- the connection: every event of this league goes to its handlers ----------------------------
  let connected = false, source = null;

  function connect() {
    source = new EventSource(new URL("api/events?league=" + encodeURIComponent(league), root));
    Object.keys(handlers).filter((kind) => kind !== "open").forEach((kind) => source.addEventListener(kind, (event) => {
      const data = JSON.parse(event.data);
      if (data.league === league) handlers[kind].forEach((handler) => handler(data));
    }));
    source.addEventListener("open", () => {
      (handlers.open || []).forEach((handler) => handler(connected));  // true: a reconnection (events missed)
      connected = true;
    });
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);  // refused (503): try later
    });
  }

  // A page left for another closes its stream: a browser keeps at most 6 connections to a server over HTTP/1.1,
  // and the pages it keeps for "back" would hold theirs open, so the 7th page of the site would never load.
  // Coming back to the page reconnects, and the page fetches what changed meanwhile (an "open" again).
  window.addEventListener("pagehide", () => { if (source) source.close(); });
  window.addEventListener("pageshow", (event) => { if (event.persisted) connect(); });

  // ---- standings, ratings, a bot's page: patched from the page as just published ---------------------
  // Only what differs is changed, so the table rows stay the same elements (and the reader's place).
  function morph(old, next) {
    if (old.nodeType !== next.nodeType || old.nodeName !== next.nodeName) {
      old.replaceWith(document.importNode(next, true));
      return;
    }
    if (old.nodeType !== Node.ELEMENT_NODE) {
      if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
      return;
    }
    Array.from(old.attributes).forEach(({ name }) => { if (!next.hasAttribute(name)) old.removeAttribute(name); });
    Array.from(next.attributes).forEach(({ name, value }) => {
      if (old.getAttribute(name) !== value) old.setAttribute(name, value);
    });
    const olds = Array.from(old.childNodes), nexts = Array.from(next.childNodes);
    nexts.forEach((child, i) => (i < olds.length ? morph(olds[i], child) : old.appendChild(document.importNode(child, true))));
    olds.slice(nexts.length).forEach((child) => child.remove());
  }

  function refreshPage() {
    return fetchText(location.pathname + location.search).then((text) => {
      const fresh = new DOMParser().parseFromString(text, "text/html");
      ["header", "main"].forEach((tag) => {
        const old = document.querySelector(tag), next = fresh.querySelector(tag);
        if (old && next) morph(old, next);
      });
      changed();
    });
  }

  // ---- the games list: games.js renders window.HEXARENA_INDEX again on hashchange ------------------
  function refreshGames() {
    return fetchText("data/games.js").then((text) => {
      const data = window.HEXARENA_INDEX;  // the object games.js holds: updated in place
      Object.assign(data, JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)));
      // and the parts of the list games.js has loaded (data/games-<k>.js), in place too: it loads a part once
      const parts = window.HEXARENA_PARTS || {};
      return Promise.all(Object.keys(parts).map((k) => fetchText("data/games-" + k + ".js").then((part) => {
        parts[k] = JSON.parse(part.slice(part.indexOf("= [") + 2, part.lastIndexOf("]") + 1));
      })));
    }).then(() => {
      const data = window.HEXARENA_INDEX;
      [["bot", data.bots], ["opponent", data.bots], ["config", data.configs]].forEach(([id, names]) => {
        const select = $(id);
        while (select.options.length > 1) select.remove(1);
        names.forEach((name, i) => select.add(new Option(name, String(i))));
      });
      window.dispatchEvent(new HashChangeEvent("hashchange"));
      changed();
    });
  }

  // ---- games in progress: a card above the games list (and on the page of a league still waiting) -----
  function liveGamesCard() {
    const card = html("div", undefined, "card");
    card.id = "live-games";
    const heading = html("h2", "In progress");
    heading.style.marginTop = "0";
    card.append(heading, html("p", "No game is being played right now.", "muted"));
    const table = html("table");
    table.innerHTML = "<thead><tr><th>Seats</th><th class=\"fold\">Configuration</th><th class=\"num\">Moves</th>" +
      "<th class=\"fold\">Started</th><th></th></tr></thead>";
    const body = html("tbody");
    body.id = "live-rows";
    table.appendChild(body);
    card.appendChild(table);
    document.querySelector("main h1").after(card);
    return card;
  }

  function showLiveGames(card, games) {
    card.querySelector("p").hidden = games.length > 0;
    card.querySelector("table").hidden = games.length === 0;
    card.querySelector("tbody").replaceChildren(...games.map((game) => {
      const tr = html("tr");
      tr.dataset.game = game.game;
      const seats = html("td", undefined, "seats");
      game.seats.forEach((name, seat) => {
        if (seat) seats.appendChild(document.createTextNode(" · "));
        seats.append(html("span", "", "chip seat" + seat), html("span", name));
      });
      const link = html("a", "watch");
      link.href = "replay.html?live=" + encodeURIComponent(game.game);
      const watch = html("td", undefined, "replay");
      watch.appendChild(link);
      tr.append(seats, html("td", game.config_label, "fold"), html("td", String(game.moves.length), "num live-moves"),
        html("td", game.started.replace("T", " ").slice(0, 19), "muted fold"), watch);
      return tr;
    }));
  }

  function followLiveGames() {
    const card = liveGamesCard();
    const load = () => api("api/live/games?league=" + encodeURIComponent(league)).then((games) => showLiveGames(card, games));
    on("open", load);
    on("game_started", load);
    on("game_ended", load);
    on("move", (move) => {
      const cell = card.querySelector("tr[data-game='" + CSS.escape(move.game) + "'] .live-moves");
      if (cell) cell.textContent = String(move.ply + 1);
    });
  }

  // ---- a spectator: replay.html?live=GAME ------------------------------------------------------------
  function spectate(id) {
    let viewer = null, game = null, loading = null;
    const early = [];

    function append(move) {
      if (move.ply < game.moves.length) return;  // already in the snapshot
      if (move.ply > game.moves.length) return resync();  // a move missed: fetch what the server has
      viewer.append({ seat: move.seat, line: move.line, ms: move.ms, closed: [], substituted: false });
      changed();
    }

    function resync() {
      if (loading || live.ended) return loading;
      loading = api("api/live/games/" + encodeURIComponent(id)).then((snapshot) => {
        loading = null;
        if (viewer === null) {
          game = {
            id: snapshot.game, seats: snapshot.seats, config: snapshot.config, config_label: snapshot.config_label,
            board: snapshot.board, started: snapshot.started, opening: [], moves: [], summary: "In progress",
            result: { scores: [], placements: [], termination: "in progress", offender: null, forfeits: [] },
          };
          viewer = window.HEXARENA_REPLAY.start(game);
          $("final-scores").textContent = "live: each move appears as it is played";
        }
        snapshot.moves.forEach(append);
        early.splice(0).forEach(append);
        if (snapshot.end) finish(snapshot.end);  // it has just ended: the site does not have its record yet
      }, (status) => {
        loading = null;
        // over and in the site already (or never played here): the record, at its final position
        if (status === 404) location.replace("replay.html?game=" + encodeURIComponent(id) + "&move=end");
      });
      return loading;
    }

    function finish(end) {
      live.ended = true;
      const fault = end.termination !== "completed";
      $("result").textContent = "Finished: " + game.seats.join(" vs ") + " " + end.scores.join("–");
      $("termination").textContent = fault ? end.termination + " by " + LETTERS[end.offender] + " " +
        game.seats[end.offender] : "completed: every line drawn";
      $("final-scores").textContent = "final scores " + end.scores.join("–");
      changed();
    }

    // the link to the record once the site has it (the server publishes the site, then announces standings; should
    // the site not have it yet, the record's page reloads at the next standings)
    function offerRecord() {
      if (!live.ended || $("record-link")) return;
      const link = html("a", "the game's record");
      link.id = "record-link";
      link.href = "replay.html?game=" + encodeURIComponent(id) + "&move=end";  // a game's file is named by its id
      $("final-scores").after(document.createTextNode(" · "), link);
    }

    on("open", resync);
    on("move", (move) => {
      if (move.game !== id) return;
      if (viewer === null || loading) early.push(move);
      else append(move);
    });
    on("game_ended", (end) => {
      if (end.game !== id) return;
      if (viewer !== null) finish(end);
      else if (loading) loading.then(() => { if (viewer !== null) finish(end); });
    });
    on("standings", () => (loading ? loading.then(offerRecord) : offerRecord()));
  }

  // ---- which page this is ------------------------------------------------------------------------
  function setUp() {
    if (spectated !== null) {
      spectate(spectated);
    } else if ($("waiting")) {  // a league without a finished game: its first one brings the site
      followLiveGames();
      on("standings", () => location.reload());
    } else if (window.HEXARENA_INDEX && $("games")) {
      followLiveGames();
      on("standings", refreshGames);
      on("open", (again) => { if (again) refreshGames(); });
    } else if (page !== "replay.html" && page !== "log.html") {  // a log is a finished game's: nothing to refresh
      on("standings", refreshPage);
      on("open", (again) => { if (again) refreshPage(); });
    } else {  // a record the site did not have yet ("No such game"): it may have it now
      on("standings", () => { if (!$("error").hidden) location.reload(); });
    }
    connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
