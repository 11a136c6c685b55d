#include "strategy.hpp"

#include <cstdlib>

int centre_most(const std::string grid[6]) {
    int best = -1;
    for (int column = 0; column < 7; ++column) {
        if (grid[0][column] != '.') continue;
        if (best < 0 || std::abs(column - 3) < std::abs(best - 3)) best = column;
    }
    return best;
}
