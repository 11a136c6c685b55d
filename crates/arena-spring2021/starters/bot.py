# Spring Challenge 2021 starter bot, Python 3, written as CodinGame's template is: print() without
# flushing (arena runs Python unbuffered, as CodinGame does). Protocol: docs/protocol-spring2021.md
import sys

number_of_cells = int(input())
cells = []
for _ in range(number_of_cells):
    index, richness, *neighbours = map(int, input().split())
    cells.append((index, richness, neighbours))

ORDER = {"COMPLETE": 0, "GROW": 1, "SEED": 2, "WAIT": 3}

while True:
    try:
        day = int(input())
    except EOFError:
        break  # the game is over: the referee closed the input
    nutrients = int(input())
    sun, score = map(int, input().split())
    opp_sun, opp_score, opp_is_waiting = map(int, input().split())
    trees = []
    for _ in range(int(input())):
        cell_index, size, is_mine, is_dormant = map(int, input().split())
        trees.append((cell_index, size, is_mine == 1, is_dormant == 1))
    possible = [input().strip() for _ in range(int(input()))]
    # Every listed action is legal: complete a tree if we can, else grow, else seed, else wait.
    action = min(possible, key=lambda move: ORDER.get(move.split()[0], 3))
    print(action)
