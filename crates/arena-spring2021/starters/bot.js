// Spring Challenge 2021 starter bot, JavaScript as on CodinGame: the global readline() and print().
// Protocol: docs/protocol-spring2021.md
const numberOfCells = parseInt(readline());
const cells = [];
for (let i = 0; i < numberOfCells; i++) {
  const [index, richness, ...neighbours] = readline().split(' ').map(Number);
  cells.push({ index, richness, neighbours });
}
const ORDER = { COMPLETE: 0, GROW: 1, SEED: 2, WAIT: 3 };
while (true) {
  const day = parseInt(readline());
  const nutrients = parseInt(readline());
  const [sun, score] = readline().split(' ').map(Number);
  const [oppSun, oppScore, oppIsWaiting] = readline().split(' ').map(Number);
  const trees = [];
  const numberOfTrees = parseInt(readline());
  for (let i = 0; i < numberOfTrees; i++) {
    const [cellIndex, size, isMine, isDormant] = readline().split(' ').map(Number);
    trees.push({ cellIndex, size, isMine: isMine === 1, isDormant: isDormant === 1 });
  }
  const possible = [];
  const numberOfPossibleActions = parseInt(readline());
  for (let i = 0; i < numberOfPossibleActions; i++) possible.push(readline().trim());
  // Every listed action is legal: complete a tree if we can, else grow, else seed, else wait.
  const rank = (move) => ORDER[move.split(' ')[0]] ?? 3;
  const action = possible.reduce((best, move) => (rank(move) < rank(best) ? move : best), 'WAIT');
  print(action);
}
