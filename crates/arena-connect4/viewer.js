"use strict";
// Connect Four: the grid after each move. Frame 0 is the opening (the discs drawn from the seed);
// frame i (i >= 1) is the grid after the players' i-th move, which is the record's step i - 1.

Arena.register(["connect4"], (record, ui) => {
  const { svg, el, put, names, colors } = ui;
  const frames = record.frames;
  const stage = document.getElementById("stage");
  const side = document.getElementById("side");
  const CELL = 56;

  function draw(i) {
    const frame = frames[i];
    const rows = frame.grid.length;
    const columns = rows ? frame.grid[0].length : 0;
    const winning = new Set((frame.line || []).map(([r, c]) => r + "," + c));
    const board = svg("svg", {
      viewBox: "0 0 " + columns * CELL + " " + rows * CELL,
      width: columns * CELL, height: rows * CELL, class: "connect4",
    });
    board.appendChild(svg("rect", { x: 0, y: 0, width: columns * CELL, height: rows * CELL, fill: "#1f4e9c", rx: 8 }));
    frame.grid.forEach((row, r) => {
      row.split("").forEach((cell, c) => {
        const player = cell === "." ? null : Number(cell);
        const justPlayed = frame.player !== null && c === frame.column && r === frame.grid.findIndex((line) => line[c] !== ".");
        board.appendChild(svg("circle", {
          cx: c * CELL + CELL / 2, cy: r * CELL + CELL / 2, r: CELL / 2 - 6,
          fill: player === null ? "#f4f4f4" : colors[player],
          stroke: winning.has(r + "," + c) ? "#ffd400" : justPlayed ? "#ffffff" : "none",
          "stroke-width": winning.has(r + "," + c) ? 5 : 3,
        }));
      });
    });
    put(stage, board);
    const who = frame.player === null ? "opening (from the seed)" : names[frame.player] + " → column " + frame.column;
    put(side, el("div", {}, who), frame.line && frame.line.length ? el("div", {}, "four in a row") : "");
  }

  return {
    count: frames.length,
    label: (i) => (i === 0 ? "Opening" : "Move " + i),
    draw,
    steps: (i) => (i > 0 && record.steps && record.steps[i - 1] ? [i - 1] : []),
    position: (k) => k + 1,
  };
});
