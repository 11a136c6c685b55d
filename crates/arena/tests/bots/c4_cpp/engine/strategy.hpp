#pragma once
#include <string>

// The open column nearest the centre.
int centre_most(const std::string grid[6]);
