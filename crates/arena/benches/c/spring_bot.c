/* A trivial Spring Challenge 2021 bot that plays moves: reads each ask whole and answers the last
   listed action (the referee lists only legal ones), so games grow trees and last their 24 days. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[4096], last[4096];

static int next(void) { return fgets(line, sizeof line, stdin) != NULL; }

int main(void) {
    int first = 1;
    for (;;) {
        if (first) {
            if (!next()) return 0;
            int cells = atoi(line);
            for (int i = 0; i < cells; i++)
                if (!next()) return 0;
            first = 0;
        }
        for (int i = 0; i < 4; i++) /* day, nutrients, my sun and score, theirs */
            if (!next()) return 0;
        if (!next()) return 0;
        int trees = atoi(line);
        for (int i = 0; i < trees; i++)
            if (!next()) return 0;
        if (!next()) return 0;
        int actions = atoi(line);
        strcpy(last, "WAIT\n");
        for (int i = 0; i < actions; i++) {
            if (!next()) return 0;
            strcpy(last, line);
        }
        fputs(last, stdout);
        fflush(stdout);
    }
}
