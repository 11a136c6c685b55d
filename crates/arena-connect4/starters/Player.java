// Connect Four starter bot, Java. Protocol: `arena protocol connect4`.
// Each move: a line with my player number, then the grid's 6 rows (top first, `.` empty, `0`/`1` discs).
import java.util.Scanner;

class Player {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNextInt()) {
            int me = in.nextInt();
            String[] grid = new String[6];
            for (int row = 0; row < 6; row++) grid[row] = in.next();
            // The open column nearest the centre.
            int best = -1;
            for (int column = 0; column < 7; column++) {
                if (grid[0].charAt(column) != '.') continue;
                if (best < 0 || Math.abs(column - 3) < Math.abs(best - 3)) best = column;
            }
            System.out.println(best);
        }
    }
}
