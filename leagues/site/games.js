// The games list: filters (bot, opponent, configuration, result) and pagination over data/games.js
// (window.HEXARENA_INDEX: bots, configurations, counts) and the rows in parts of index.part_rows, newest
// first (data/games-<k>.js, window.HEXARENA_PARTS[k]; games.html loads part 0). A page of the unfiltered
// list loads only its part; a filter loads every part once, then filters in memory. Only one page of rows
// is in the DOM, so a million games stay fast.
// The filter state lives in the URL hash (games.html#bot=greedy&against=random&config=0&result=win&page=2).
(function () {
  "use strict";
  const PAGE = 50;
  const LETTERS = "ABCD";
  const $ = (id) => document.getElementById(id);
  const data = window.HEXARENA_INDEX;
  const parts = (window.HEXARENA_PARTS = window.HEXARENA_PARTS || {});
  const loading = {};
  // a game: [file, started, config, [bot per seat], [scores], [placements], termination, moves, offender]
  const FILE = 0, STARTED = 1, CONFIG = 2, SEATS = 3, SCORES = 4, PLACES = 5, TERM = 6, MOVES = 7, OFFENDER = 8;

  function option(select, value, text) {
    const node = document.createElement("option");
    node.value = value;
    node.textContent = text;
    select.appendChild(node);
  }

  data.bots.forEach((name, i) => option($("bot"), String(i), name));
  data.bots.forEach((name, i) => option($("opponent"), String(i), name));
  data.configs.forEach((label, i) => option($("config"), String(i), label));

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const bot = params.get("bot");
    const botIndex = bot === null ? -1 : data.bots.indexOf(bot);
    const against = params.get("against");
    const opponentIndex = against === null ? -1 : data.bots.indexOf(against);
    const config = params.get("config");
    const configIndex = config === null ? -1 : data.configs.indexOf(config);
    return {
      bot: botIndex, opponent: opponentIndex, config: configIndex, result: params.get("result") || "",
      page: Math.max(1, parseInt(params.get("page") || "1", 10) || 1),
    };
  }

  function writeHash(state) {
    const params = new URLSearchParams();
    if (state.bot >= 0) params.set("bot", data.bots[state.bot]);
    if (state.opponent >= 0) params.set("against", data.bots[state.opponent]);
    if (state.config >= 0) params.set("config", data.configs[state.config]);
    if (state.result) params.set("result", state.result);
    if (state.page > 1) params.set("page", String(state.page));
    const hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  function outcome(game, seat) {
    const best = Math.min(...game[PLACES]);
    if (game[PLACES][seat] !== best) return "loss";
    return game[PLACES].filter((p) => p === best).length > 1 ? "draw" : "win";
  }

  function matches(game, state) {
    if (state.config >= 0 && game[CONFIG] !== state.config) return false;
    const seat = state.bot >= 0 ? game[SEATS].indexOf(state.bot) : -1;
    if (state.bot >= 0 && seat < 0) return false;
    // the opponent sits at another seat than the chosen bot (self-play: the same bot twice)
    if (state.opponent >= 0 && !game[SEATS].some((b, s) => b === state.opponent && s !== seat)) return false;
    switch (state.result) {
      case "": return true;
      case "fault": return game[TERM] !== "completed";
      case "completed": return game[TERM] === "completed";
      case "draw": return outcome(game, 0) === "draw" || (seat >= 0 && outcome(game, seat) === "draw");
      case "win": return seat >= 0 ? outcome(game, seat) === "win" : outcome(game, 0) !== "draw";
      case "loss": return seat >= 0 ? outcome(game, seat) === "loss" : outcome(game, 0) !== "draw";
      default: return true;
    }
  }

  function html(tag, text, cls, title) {
    const node = document.createElement(tag);
    node.textContent = text;
    node.className = cls;
    if (title) node.title = title;
    return node;
  }

  function cell(text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }

  // a part of the list, by a script tag (file:// allows no fetch); resolves when window.HEXARENA_PARTS[k] is set
  function load(k) {
    if (!loading[k]) {
      loading[k] = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = "data/games-" + k + ".js";
        script.onload = () => (parts[k] ? resolve() : reject(new Error("empty part " + k)));
        script.onerror = () => reject(new Error("missing part " + k));
        document.head.appendChild(script);
      });
    }
    return loading[k];
  }

  function waitFor(missing, state) {
    $("count").textContent = "loading the games list… (" + (data.parts - missing.length) + " of " + data.parts + " parts)";
    load(missing[0]).then(render, () => { $("count").textContent = "part of the games list is missing: publish again"; });
    return state;
  }

  let everything = null;  // every row, once every part is loaded

  function render() {
    const state = readHash();
    $("bot").value = String(state.bot);
    $("opponent").value = String(state.opponent);
    $("config").value = String(state.config);
    $("result").value = state.result;
    const filtered = state.bot >= 0 || state.opponent >= 0 || state.config >= 0 || state.result !== "";
    let shown, count;
    if (filtered) {
      const missing = [];
      for (let k = 0; k < data.parts; k++) if (!parts[k]) missing.push(k);
      if (missing.length) return waitFor(missing, state);
      if (everything === null) everything = [].concat(...Array.from({ length: data.parts }, (_, k) => parts[k]));
      const chosen = everything.filter((game) => matches(game, state));
      count = chosen.length;
      state.page = Math.min(state.page, Math.max(1, Math.ceil(count / PAGE)));
      shown = chosen.slice((state.page - 1) * PAGE, state.page * PAGE);
    } else {
      count = data.total;
      state.page = Math.min(state.page, Math.max(1, Math.ceil(count / PAGE)));
      const first = (state.page - 1) * PAGE, k = Math.floor(first / data.part_rows);
      if (count && !parts[k]) return waitFor([k], state);
      shown = count ? parts[k].slice(first - k * data.part_rows, first - k * data.part_rows + PAGE) : [];
    }
    const pages = Math.max(1, Math.ceil(count / PAGE));
    const rows = shown.map((game) => {
      const tr = document.createElement("tr");
      tr.appendChild(cell(game[STARTED] ? game[STARTED].replace("T", " ").slice(0, 16) : "", "muted fold"));
      const seats = document.createElement("td");
      seats.className = "seats";
      game[SEATS].forEach((bot, seat) => {
        if (seat) seats.appendChild(document.createTextNode(" · "));
        const chip = document.createElement("span");
        chip.className = "chip seat" + seat;
        const name = document.createElement("span");
        name.textContent = data.bots[bot];
        name.className = outcome(game, seat) === "win" ? "win" : "";
        seats.append(chip, name);
      });
      tr.appendChild(seats);
      const fault = game[TERM] !== "completed";
      const ending = fault ? game[TERM] + " (" + LETTERS[game[OFFENDER]] + ")" : "completed";
      const score = cell(game[SCORES].join("–"), "num score");
      if (fault) score.appendChild(html("span", " ⚑", "flag phone-inline", ending));  // a phone folds the termination
      tr.appendChild(score);
      tr.appendChild(cell(data.configs[game[CONFIG]], "fold"));
      tr.appendChild(cell(ending, fault ? "flag fold" : "muted fold"));
      tr.appendChild(cell(String(game[MOVES]), "num fold"));
      const link = document.createElement("a");
      link.href = "replay.html?game=" + encodeURIComponent(game[FILE]);
      link.textContent = "replay";
      const td = document.createElement("td");
      td.className = "replay";
      td.appendChild(link);
      tr.appendChild(td);
      return tr;
    });
    $("rows").replaceChildren(...rows);
    $("count").textContent = count + " of " + data.total + " games";
    $("page").textContent = "page " + state.page + " of " + pages;
    $("prev").disabled = state.page <= 1;
    $("next").disabled = state.page >= pages;
    $("empty").hidden = count > 0;
    return state;
  }

  function change(update) {
    const state = Object.assign(readHash(), update);
    writeHash(state);
    render();
  }

  $("bot").addEventListener("change", (e) => change({ bot: Number(e.target.value), page: 1 }));
  $("opponent").addEventListener("change", (e) => change({ opponent: Number(e.target.value), page: 1 }));
  $("config").addEventListener("change", (e) => change({ config: Number(e.target.value), page: 1 }));
  $("result").addEventListener("change", (e) => change({ result: e.target.value, page: 1 }));
  $("prev").addEventListener("click", () => change({ page: readHash().page - 1 }));
  $("next").addEventListener("click", () => change({ page: readHash().page + 1 }));
  window.addEventListener("hashchange", render);
  render();
})();
