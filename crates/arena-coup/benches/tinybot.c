/* A tiny Coup KotH bot for the call benchmark: picks a legal move by hashing the history and its
   arguments (so games vary but replay exactly), keeps its own hand on an Exchange. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 6) return 2;
    char history[65536];
    size_t n = 0;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 3;
    n = fread(history, 1, sizeof history - 1, f);
    fclose(f);
    history[n] = 0;
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)history[i]) * 1099511628211ULL;
    for (int a = 2; a < argc; a++)
        for (const char *p = argv[a]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    int legal = argc - 5;
    const char *choice = argv[5 + (int)((h >> 17) % (unsigned long long)legal)];
    const char *line = strrchr(history, '\n');
    line = line ? line + 1 : history;
    size_t len = strlen(line);
    if (strcmp(choice, "\n") == 0 && len % 2 == 0 && line[0] == 'E' && strchr("p_'<=0", line[len - 1])) {
        fputs(argv[4] + 2, stdout); /* keep the hand: the drawn cards come first */
    }
    f = fopen(argv[1], "ab");
    if (!f) return 4;
    fputs(choice, f);
    fclose(f);
    return 0;
}
