/** The open column nearest the centre. */
export function centreMost(grid: string[]): number {
  let best = -1;
  for (let column = 0; column < 7; column++) {
    if (grid[0][column] !== ".") continue;
    if (best < 0 || Math.abs(column - 3) < Math.abs(best - 3)) best = column;
  }
  return best;
}
