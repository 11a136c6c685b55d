// Spring Challenge 2021 starter bot, TypeScript as on CodinGame: the global readline() and print().
// Protocol: docs/protocol-spring2021.md
interface Tree {
  cellIndex: number;
  size: number;
  isMine: boolean;
  isDormant: boolean;
}

const numberOfCells: number = parseInt(readline());
const richness: number[] = [];
for (let i = 0; i < numberOfCells; i++) {
  const words: number[] = readline().split(' ').map(Number);
  richness.push(words[1]);
}
const ORDER: { [kind: string]: number } = { COMPLETE: 0, GROW: 1, SEED: 2, WAIT: 3 };
const rank = (move: string): number => ORDER[move.split(' ')[0]] ?? 3;
while (true) {
  const day: number = parseInt(readline());
  const nutrients: number = parseInt(readline());
  const [sun, score] = readline().split(' ').map(Number);
  const [oppSun, oppScore, oppIsWaiting] = readline().split(' ').map(Number);
  const trees: Tree[] = [];
  const numberOfTrees: number = parseInt(readline());
  for (let i = 0; i < numberOfTrees; i++) {
    const [cellIndex, size, isMine, isDormant] = readline().split(' ').map(Number);
    trees.push({ cellIndex, size, isMine: isMine === 1, isDormant: isDormant === 1 });
  }
  const possible: string[] = [];
  const numberOfPossibleActions: number = parseInt(readline());
  for (let i = 0; i < numberOfPossibleActions; i++) possible.push(readline().trim());
  // Every listed action is legal: complete a tree if we can, else grow, else seed, else wait.
  let action = 'WAIT';
  for (const move of possible) if (rank(move) < rank(action)) action = move;
  print(action);
}
