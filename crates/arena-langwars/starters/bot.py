# Lang Wars starter bot (langwars, langwars2, negotiate), Python 3. Protocol: docs/protocol-langwars.md
import sys


def numbers():
    return [int(word) for word in sys.stdin.readline().split()]


def main():
    print("READY", flush=True)
    turns, players, targets = numbers()
    attention = numbers()
    for _ in range(turns):
        header = sys.stdin.readline().split()
        if not header:
            return  # the game is over
        turn = int(header[0])  # header[1] is the kind of turn: W/D (odd turns) or H/N
        visible = [numbers() for _ in range(targets)]  # visible[i][0] is my own visible total
        real = numbers()  # my own real totals
        if turn % 2 == 1:
            spent = numbers()  # actions everyone spent on each target last turn
        actions = 5 if turn % 2 == 1 else 2
        planned = [0] * targets
        answer = []
        for _ in range(actions):
            # The target whose attention is highest for what I have put in so far.
            best = max(range(targets), key=lambda i: attention[i] / (1 + real[i] + planned[i]))
            planned[best] += 1
            answer.append(best)
        print(" ".join(map(str, answer)), flush=True)


main()
