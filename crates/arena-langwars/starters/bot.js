// Lang Wars starter bot (langwars, langwars2, negotiate), JavaScript with CodinGame's readline().
// Protocol: docs/protocol-langwars.md
const numbers = () => readline().trim().split(/\s+/).map(Number);

print('READY');
const [turns, players, targets] = numbers();
const attention = numbers();
for (let t = 0; t < turns; t++) {
  const header = readline().trim().split(/\s+/);
  const turn = Number(header[0]); // header[1]: W/D on odd turns, H/N on even ones
  const visible = [];
  for (let i = 0; i < targets; i++) visible.push(numbers()); // visible[i][0]: my own visible total
  const real = numbers(); // my own real totals
  if (turn % 2 === 1) numbers(); // actions everyone spent on each target last turn
  const actions = turn % 2 === 1 ? 5 : 2;
  const planned = new Array(targets).fill(0);
  const answer = [];
  for (let a = 0; a < actions; a++) {
    let best = 0;
    for (let i = 1; i < targets; i++) {
      if (attention[i] / (1 + real[i] + planned[i]) > attention[best] / (1 + real[best] + planned[best])) best = i;
    }
    planned[best]++;
    answer.push(best);
  }
  print(answer.join(' '));
}
