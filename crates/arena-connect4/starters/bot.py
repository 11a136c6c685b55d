# Connect Four starter bot, Python 3. Protocol: `arena protocol connect4`.
# Each move: a line with my player number, then the grid's 6 rows (top first, `.` empty, `0`/`1` discs).
import sys

while True:
    line = sys.stdin.readline()
    if not line:
        break
    me = int(line)
    grid = [sys.stdin.readline().strip() for _ in range(6)]
    open_columns = [c for c in range(7) if grid[0][c] == "."]
    # The open column nearest the centre.
    column = min(open_columns, key=lambda c: abs(c - 3))
    print(column, flush=True)
