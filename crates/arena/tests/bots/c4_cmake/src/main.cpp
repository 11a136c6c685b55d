// Connect Four test bot of several translation units, its header in another folder.
#include <iostream>
#include <string>

#include "strategy.hpp"

int main() {
    int me;
    while (std::cin >> me) {
        std::string grid[6];
        for (auto &row : grid) std::cin >> row;
        std::cout << centre_most(grid) << std::endl;
    }
}
