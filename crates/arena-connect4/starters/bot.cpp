// Connect Four starter bot, C++. Protocol: `arena protocol connect4`.
// Each move: a line with my player number, then the grid's 6 rows (top first, `.` empty, `0`/`1` discs).
#include <cstdlib>
#include <iostream>
#include <string>

int main() {
    int me;
    while (std::cin >> me) {
        std::string grid[6];
        for (auto &row : grid) std::cin >> row;
        // The open column nearest the centre.
        int best = -1;
        for (int column = 0; column < 7; ++column) {
            if (grid[0][column] != '.') continue;
            if (best < 0 || std::abs(column - 3) < std::abs(best - 3)) best = column;
        }
        std::cout << best << std::endl;
    }
}
