# A Lang Wars bot as the 2014 Python samples were: Python 2, `python` in run.sh.
import sys
print "READY"
sys.stdout.flush()
turns, players, targets = map(int, raw_input().split())
attention = map(int, raw_input().split())
for _ in xrange(turns):
    turn, kind = raw_input().split()
    turn = int(turn)
    for i in xrange(targets):
        raw_input()
    raw_input()
    if turn % 2 == 1:
        raw_input()
    n = 5 if turn % 2 == 1 else 2
    print " ".join(str(i % targets) for i in xrange(n))
    sys.stdout.flush()
