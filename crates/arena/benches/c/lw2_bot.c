/* A trivial Lang Wars 2 bot: READY, then reads each ask whole (the settings on the first, then the
   turn line, one row per language, the real line and, on odd turns, the counts line) and answers
   the first five languages. No work: what is measured is the path to it. */
#include <stdio.h>
#include <stdlib.h>

static char line[65536];

static int next(void) { return fgets(line, sizeof line, stdin) != NULL; }

int main(void) {
    fputs("READY\n", stdout);
    fflush(stdout);
    int languages = 0;
    if (!next()) return 0;
    if (sscanf(line, "%*d %*d %d", &languages) != 1) return 1;
    if (!next()) return 0; /* values */
    for (;;) {
        if (!next()) return 0; /* "TURN LETTER" */
        int turn = atoi(line);
        for (int i = 0; i < languages + 1; i++)
            if (!next()) return 0;
        if (turn % 2 == 1 && !next()) return 0;
        fputs("0 1 2 3 4\n", stdout);
        fflush(stdout);
    }
}
