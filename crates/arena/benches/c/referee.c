/* The bare referee of the process benchmark: plays GAMES games, each replaying one recorded game's
   asks (cycling through the recorded games) to freshly spawned bots, the way a minimal referee would:
   posix_spawn each bot in its own process group, wait for READY if asked, freeze every bot (SIGSTOP),
   then for each ask continue the bot, write the input, read one line, freeze it again; at the end kill
   each group and reap it. Prints "bare: G games in S s".

   usage: referee SCRIPT GAMES READY BOT [CPU]
   CPU: start every bot on that CPU only, the way arena pins (the referee holds that affinity around
   each posix_spawn, which the bot inherits, and goes back to its own after).
   SCRIPT: "GAMES PLAYERS\n", then per game "ASKS\n" and per ask "PLAYER BYTES\n" and the bytes. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct { int player; size_t length; char *text; } Ask;
typedef struct { int count; Ask *asks; } Game;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct { pid_t pid; int in, out; char buffer[65536]; size_t have; } Bot;

/* Reads up to and including the next newline; the rest stays buffered. */
static int read_line(Bot *bot) {
    for (;;) {
        char *end = memchr(bot->buffer, '\n', bot->have);
        if (end) {
            size_t used = (size_t)(end - bot->buffer) + 1;
            memmove(bot->buffer, end + 1, bot->have - used);
            bot->have -= used;
            return 1;
        }
        ssize_t n = read(bot->out, bot->buffer + bot->have, sizeof bot->buffer - bot->have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        bot->have += (size_t)n;
    }
}

static void start(Bot *bot, char *path, int cpu) {
    int in[2], out[2];
    cpu_set_t own;
    if (cpu >= 0) {
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(cpu, &only);
        if (sched_getaffinity(0, sizeof own, &own) || sched_setaffinity(0, sizeof only, &only)) {
            perror("affinity");
            exit(1);
        }
    }
    if (pipe(in) || pipe(out)) { perror("pipe"); exit(1); }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    char *argv[] = {path, NULL};
    if (posix_spawn(&bot->pid, path, &actions, &attributes, argv, environ)) { perror("spawn"); exit(1); }
    if (cpu >= 0 && sched_setaffinity(0, sizeof own, &own)) { perror("affinity"); exit(1); }
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(in[0]);
    close(out[1]);
    bot->in = in[1];
    bot->out = out[0];
    bot->have = 0;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: referee SCRIPT GAMES READY BOT [CPU]\n");
        return 2;
    }
    int cpu = argc == 6 ? atoi(argv[5]) : -1;
    signal(SIGPIPE, SIG_IGN);
    FILE *script = fopen(argv[1], "rb");
    if (!script) { perror(argv[1]); return 1; }
    int recorded, players;
    if (fscanf(script, "%d %d\n", &recorded, &players) != 2) return 1;
    Game *games = calloc((size_t)recorded, sizeof *games);
    for (int g = 0; g < recorded; g++) {
        if (fscanf(script, "%d\n", &games[g].count) != 1) return 1;
        games[g].asks = calloc((size_t)games[g].count, sizeof(Ask));
        for (int a = 0; a < games[g].count; a++) {
            Ask *ask = &games[g].asks[a];
            if (fscanf(script, "%d %zu\n", &ask->player, &ask->length) != 2) return 1;
            ask->text = malloc(ask->length);
            if (fread(ask->text, 1, ask->length, script) != ask->length) return 1;
        }
    }
    fclose(script);
    int total = atoi(argv[2]), ready = atoi(argv[3]);
    Bot *bots = calloc((size_t)players, sizeof *bots);
    double started = now();
    for (int g = 0; g < total; g++) {
        Game *game = &games[g % recorded];
        for (int p = 0; p < players; p++) start(&bots[p], argv[4], cpu);
        for (int p = 0; p < players; p++)
            if (ready && !read_line(&bots[p])) { fprintf(stderr, "no READY\n"); return 1; }
        for (int p = 0; p < players; p++) kill(-bots[p].pid, SIGSTOP);
        for (int a = 0; a < game->count; a++) {
            Ask *ask = &game->asks[a];
            Bot *bot = &bots[ask->player];
            kill(-bot->pid, SIGCONT);
            if (write(bot->in, ask->text, ask->length) != (ssize_t)ask->length) { perror("write"); return 1; }
            if (!read_line(bot)) { fprintf(stderr, "no answer\n"); return 1; }
            kill(-bot->pid, SIGSTOP);
        }
        for (int p = 0; p < players; p++) {
            kill(-bots[p].pid, SIGKILL);
            kill(-bots[p].pid, SIGCONT);
            close(bots[p].in);
            close(bots[p].out);
            waitpid(bots[p].pid, NULL, 0);
        }
    }
    printf("bare: %d games in %.6f s\n", total, now() - started);
    return 0;
}
