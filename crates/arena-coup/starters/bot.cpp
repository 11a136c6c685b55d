// Coup KotH starter bot, C++: one call per move. Protocol: docs/protocol-coup.md
// Arguments: history file, opponent's coins, my coins, my cards (reveal symbols ~^*!$), legal moves...
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
using namespace std;

int main(int argc, char** argv) {
    if (argc < 6) {
        cerr << "usage: bot HISTORY OPPONENT_COINS MY_COINS CARDS MOVE..." << endl;
        return 1;
    }
    string historyPath = argv[1], cards = argv[4];
    vector<string> legal(argv + 5, argv + argc);
    ifstream in(historyPath);
    stringstream text;
    text << in.rdbuf();
    string history = text.str();
    string current = history.substr(history.rfind('\n') == string::npos ? 0 : history.rfind('\n') + 1);
    // Completing an Exchange: the two drawn cards come first in `cards`; keep my own (the rest).
    if (!current.empty() && current[0] == 'E' && cards.size() > 2) cout << cards.substr(2) << endl;
    // Coup when it is legal (it cannot be blocked), else the first legal move.
    string move = legal[0];
    for (const string& m : legal)
        if (m == "C") move = m;
    ofstream out(historyPath, ios::app);
    out << move;
}
