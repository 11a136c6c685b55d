// Lang Wars starter bot (langwars, langwars2, negotiate), C++. Protocol: docs/protocol-langwars.md
#include <iostream>
#include <string>
#include <vector>
using namespace std;

int main() {
    cout << "READY" << endl;  // endl flushes: every answer must be flushed
    int turns, players, targets;
    if (!(cin >> turns >> players >> targets)) return 0;
    vector<int> attention(targets);
    for (int& a : attention) cin >> a;
    for (int t = 0; t < turns; t++) {
        int turn;
        string kind;  // W/D on odd turns, H/N on even ones
        if (!(cin >> turn >> kind)) return 0;
        vector<vector<int>> visible(targets, vector<int>(players));  // visible[i][0]: my own
        for (auto& row : visible)
            for (int& v : row) cin >> v;
        vector<int> real(targets), spent(targets);
        for (int& r : real) cin >> r;
        if (turn % 2 == 1)
            for (int& s : spent) cin >> s;  // actions everyone spent on each target last turn
        int actions = turn % 2 == 1 ? 5 : 2;
        vector<int> planned(targets, 0);
        for (int a = 0; a < actions; a++) {
            int best = 0;
            for (int i = 1; i < targets; i++)
                if ((double)attention[i] / (1 + real[i] + planned[i]) >
                    (double)attention[best] / (1 + real[best] + planned[best]))
                    best = i;
            planned[best]++;
            cout << (a ? " " : "") << best;
        }
        cout << endl;
    }
}
