// Lang Wars starter bot (langwars, langwars2, negotiate), Java. Protocol: docs/protocol-langwars.md
import java.util.Scanner;

class Player {
    public static void main(String[] args) {
        System.out.println("READY");
        System.out.flush();
        Scanner in = new Scanner(System.in);
        int turns = in.nextInt(), players = in.nextInt(), targets = in.nextInt();
        int[] attention = new int[targets];
        for (int i = 0; i < targets; i++) attention[i] = in.nextInt();
        for (int t = 0; t < turns; t++) {
            if (!in.hasNextInt()) return;
            int turn = in.nextInt();
            String kind = in.next(); // W/D on odd turns, H/N on even ones
            int[][] visible = new int[targets][players]; // visible[i][0]: my own visible total
            for (int i = 0; i < targets; i++)
                for (int p = 0; p < players; p++) visible[i][p] = in.nextInt();
            int[] real = new int[targets];
            for (int i = 0; i < targets; i++) real[i] = in.nextInt();
            if (turn % 2 == 1)
                for (int i = 0; i < targets; i++) in.nextInt(); // actions spent last turn
            int actions = turn % 2 == 1 ? 5 : 2;
            int[] planned = new int[targets];
            StringBuilder answer = new StringBuilder();
            for (int a = 0; a < actions; a++) {
                int best = 0;
                for (int i = 1; i < targets; i++)
                    if ((double) attention[i] / (1 + real[i] + planned[i])
                            > (double) attention[best] / (1 + real[best] + planned[best])) best = i;
                planned[best]++;
                if (a > 0) answer.append(' ');
                answer.append(best);
            }
            System.out.println(answer);
            System.out.flush();
        }
    }
}
