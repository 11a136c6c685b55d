# Coup KotH starter bot, Python 3: one call per move. Protocol: docs/protocol-coup.md
# Arguments: history file, opponent's coins, my coins, my cards (reveal symbols ~^*!$), legal moves...
import sys

history_path, opponent_coins, my_coins, cards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
legal = sys.argv[5:]
with open(history_path) as f:
    lines = f.read().split("\n")
current = lines[-1]  # the turn in progress ("" when a new turn starts)

# Completing an Exchange: the two drawn cards come first in `cards`; keep my own (the rest).
if current.startswith("E") and len(cards) > 2:
    print(cards[2:])

# Coup when it is legal (it cannot be blocked), else the first legal move.
move = "C" if "C" in legal else legal[0]
with open(history_path, "a") as f:
    f.write(move)
