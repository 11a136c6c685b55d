// Coup KotH starter bot, JavaScript (Node.js): one call per move. Protocol: docs/protocol-coup.md
// Arguments: history file, opponent's coins, my coins, my cards (reveal symbols ~^*!$), legal moves...
const fs = require('fs');

const [historyPath, opponentCoins, myCoins, cards, ...legal] = process.argv.slice(2);
const lines = fs.readFileSync(historyPath, 'utf8').split('\n');
const current = lines[lines.length - 1]; // the turn in progress ("" when a new turn starts)

// Completing an Exchange: the two drawn cards come first in `cards`; keep my own (the rest).
if (current.startsWith('E') && cards.length > 2) print(cards.slice(2));

// Coup when it is legal (it cannot be blocked), else the first legal move.
const move = legal.includes('C') ? 'C' : legal[0];
fs.appendFileSync(historyPath, move);
