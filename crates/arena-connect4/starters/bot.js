// Connect Four starter bot, JavaScript (Node.js). Protocol: `arena protocol connect4`.
// Each move: a line with my player number, then the grid's 6 rows (top first, `.` empty, `0`/`1` discs).
const readline = require('readline');

const lines = readline.createInterface({ input: process.stdin });
let ask = [];
lines.on('line', (line) => {
  ask.push(line.trim());
  if (ask.length < 7) return;
  const grid = ask.slice(1);
  ask = [];
  // The open column nearest the centre.
  let best = -1;
  for (let column = 0; column < 7; column++) {
    if (grid[0][column] !== '.') continue;
    if (best < 0 || Math.abs(column - 3) < Math.abs(best - 3)) best = column;
  }
  console.log(best);
});
