// Spring Challenge 2021 starter bot, C++. Protocol: docs/protocol-spring2021.md
#include <iostream>
#include <map>
#include <string>
#include <vector>
using namespace std;

int main() {
    int numberOfCells;
    cin >> numberOfCells;
    vector<int> richness(numberOfCells);
    for (int i = 0; i < numberOfCells; i++) {
        int index, neighbour;
        cin >> index >> richness[i];
        for (int d = 0; d < 6; d++) cin >> neighbour;
    }
    map<string, int> order = {{"COMPLETE", 0}, {"GROW", 1}, {"SEED", 2}, {"WAIT", 3}};
    auto rank = [&](const string& move) {
        auto it = order.find(move.substr(0, move.find(' ')));
        return it == order.end() ? 3 : it->second;
    };
    while (true) {
        int day, nutrients, sun, score, oppSun, oppScore, oppIsWaiting, numberOfTrees;
        if (!(cin >> day >> nutrients >> sun >> score >> oppSun >> oppScore >> oppIsWaiting)) return 0;
        cin >> numberOfTrees;
        for (int i = 0; i < numberOfTrees; i++) {
            int cellIndex, size, isMine, isDormant;
            cin >> cellIndex >> size >> isMine >> isDormant;
        }
        int numberOfPossibleActions;
        cin >> numberOfPossibleActions;
        cin.ignore();
        string action = "WAIT";
        for (int i = 0; i < numberOfPossibleActions; i++) {
            string move;
            getline(cin, move);
            // Every listed action is legal: complete, else grow, else seed, else wait.
            if (rank(move) < rank(action)) action = move;
        }
        cout << action << endl;  // endl flushes
    }
}
