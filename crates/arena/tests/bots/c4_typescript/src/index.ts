// Connect Four test bot in the npm layout: the entry imports a module of its own.
import { centreMost } from "./strategy";

for (;;) {
  const me = readline();
  if (me === null || me === undefined) break;
  const grid: string[] = [];
  for (let row = 0; row < 6; row++) grid.push(readline());
  console.log(centreMost(grid));
}
