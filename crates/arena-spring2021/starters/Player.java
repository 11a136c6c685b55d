// Spring Challenge 2021 starter bot, Java (class Player, as on CodinGame). Protocol: docs/protocol-spring2021.md
import java.util.Scanner;

class Player {
    static int rank(String move) {
        switch (move.split(" ")[0]) {
            case "COMPLETE": return 0;
            case "GROW": return 1;
            case "SEED": return 2;
            default: return 3;
        }
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int numberOfCells = in.nextInt();
        int[] richness = new int[numberOfCells];
        for (int i = 0; i < numberOfCells; i++) {
            in.nextInt();
            richness[i] = in.nextInt();
            for (int d = 0; d < 6; d++) in.nextInt();
        }
        while (in.hasNextInt()) {
            int day = in.nextInt(), nutrients = in.nextInt();
            int sun = in.nextInt(), score = in.nextInt();
            int oppSun = in.nextInt(), oppScore = in.nextInt(), oppIsWaiting = in.nextInt();
            int numberOfTrees = in.nextInt();
            for (int i = 0; i < numberOfTrees; i++) {
                int cellIndex = in.nextInt(), size = in.nextInt(), isMine = in.nextInt(), isDormant = in.nextInt();
            }
            int numberOfPossibleActions = in.nextInt();
            in.nextLine();
            String action = "WAIT";
            for (int i = 0; i < numberOfPossibleActions; i++) {
                String move = in.nextLine().trim();
                // Every listed action is legal: complete, else grow, else seed, else wait.
                if (rank(move) < rank(action)) action = move;
            }
            System.out.println(action);
        }
    }
}
