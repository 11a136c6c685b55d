// An older version kept beside the bot: it has its own main, so it is not part of the build.
#include <iostream>
int main() { std::cout << 0 << std::endl; }
