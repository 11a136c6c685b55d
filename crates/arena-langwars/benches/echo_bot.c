/* The trivial bot of the stream-overhead benchmark: READY, then for every block of LINES input lines
   (argv[1]) one answer. It does no work, so what is measured is the cost of the path to it. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int lines = argc > 1 ? atoi(argv[1]) : 1;
    char buffer[4096];
    fputs("READY\n", stdout);
    fflush(stdout);
    for (;;) {
        for (int i = 0; i < lines; i++) {
            if (!fgets(buffer, sizeof buffer, stdin)) return 0;
        }
        fputs("1 2\n", stdout);
        fflush(stdout);
    }
}
