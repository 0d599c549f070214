// nodebot: a hexarena bot in plain Node.js (no packages) on the stdio bridge.
// The bot manifest says transport = "stdio": hexarena relays protocol v1 (protocol/PROTOCOL.md)
// as lines on stdin and stdout. Diagnostics go to stderr; stdout carries only protocol lines.
"use strict";
const readline = require("readline");

let game = null; // {seat, cells, lineCells, drawn, count, random}

function seeded(seed) { // mulberry32: the same seed gives the same game
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function startGame(g) {
  const lineCells = g.lines.map(() => []);
  g.cells.forEach((sides, cell) => sides.forEach((line) => lineCells[line].push(cell)));
  game = {
    seat: g.seat, cells: g.cells, lineCells,
    drawn: new Array(g.lines.length).fill(false),
    count: new Array(g.cells.length).fill(0),
    random: seeded(g.seed * 4 + g.seat),
  };
  g.predrawn.forEach(draw);
}

function draw(line) {
  if (game.drawn[line]) return;
  game.drawn[line] = true;
  game.lineCells[line].forEach((cell) => { game.count[cell] += 1; });
}

// Close a cell if possible; else a line that leaves every cell two sides short; else any free line.
function choose() {
  const free = [], safe = [];
  game.drawn.forEach((drawn, line) => { if (!drawn) free.push(line); });
  for (const line of free) {
    const missing = game.lineCells[line].map((cell) => game.cells[cell].length - game.count[cell] - 1);
    if (missing.includes(0)) return line;
    if (!missing.includes(1)) safe.push(line);
  }
  const pool = safe.length ? safe : free;
  return pool[Math.floor(game.random() * pool.length)];
}

function say(text) { process.stdout.write(text + "\n"); }

say(`HELLO v1 ${process.env.HEXARENA_TOKEN} nodebot`);
const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (text) => {
  const [command, ...words] = text.split(" ");
  if (command === "GAME") startGame(JSON.parse(text.slice(5)));
  else if (command === "DRAWN") draw(Number(words[1]));
  else if (command === "TURN") say(`MOVE ${words[0]} ${choose()}`);
  else if (command === "END") game = null;
  else if (command === "BYE") process.exit(0);
});
input.on("close", () => process.exit(0));
