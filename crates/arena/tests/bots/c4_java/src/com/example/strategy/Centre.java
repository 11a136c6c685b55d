package com.example.strategy;

/** The open column nearest the centre. */
public class Centre {
    public static int mostCentral(String[] grid) {
        int best = -1;
        for (int column = 0; column < 7; column++) {
            if (grid[0].charAt(column) != '.') continue;
            if (best < 0 || Math.abs(column - 3) < Math.abs(best - 3)) best = column;
        }
        return best;
    }
}
