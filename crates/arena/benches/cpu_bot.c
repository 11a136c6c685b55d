/* A Lang Wars bot that thinks: it burns BURN_US microseconds of its own CPU time (argv[1]) before every
   answer, so that contention for cores shows up as longer answers, as it would for a real bot. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double burn = (argc > 1 ? atof(argv[1]) : 1000.0) / 1e6;
    char line[4096];
    int turns, players, targets;
    volatile unsigned long sink = 0;
    printf("READY\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin) || sscanf(line, "%d %d %d", &turns, &players, &targets) != 3) return 0;
    if (!fgets(line, sizeof line, stdin)) return 0;
    for (;;) {
        int turn;
        char letter;
        if (!fgets(line, sizeof line, stdin) || sscanf(line, "%d %c", &turn, &letter) != 2) return 0;
        for (int i = 0; i < targets + 1 + (turn % 2); i++) {
            if (!fgets(line, sizeof line, stdin)) return 0;
        }
        double start = cpu_seconds();
        while (cpu_seconds() - start < burn) sink++;
        puts(turn % 2 ? "0 1 2 3 4" : "0 1");
        fflush(stdout);
    }
}
