package com.example;

import com.example.strategy.Centre;
import java.util.Scanner;

/** Connect Four test bot as a Java source tree in packages, without Maven. */
public class Player {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNextInt()) {
            in.nextInt();
            String[] grid = new String[6];
            for (int row = 0; row < 6; row++) grid[row] = in.next();
            System.out.println(Centre.mostCentral(grid));
        }
    }
}
