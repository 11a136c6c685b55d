// Coup KotH starter bot, Java: one call per move. Protocol: docs/protocol-coup.md
// Arguments: history file, opponent's coins, my coins, my cards (reveal symbols ~^*!$), legal moves...
import java.io.FileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;

class Player {
    public static void main(String[] args) throws IOException {
        String historyPath = args[0], cards = args[3];
        String history = new String(Files.readAllBytes(Paths.get(historyPath)), "UTF-8");
        String current = history.substring(history.lastIndexOf('\n') + 1);
        // Completing an Exchange: the two drawn cards come first in `cards`; keep my own (the rest).
        if (current.startsWith("E") && cards.length() > 2) System.out.println(cards.substring(2));
        // Coup when it is legal (it cannot be blocked), else the first legal move.
        String move = args[4];
        for (int i = 4; i < args.length; i++) if (args[i].equals("C")) move = "C";
        try (FileWriter out = new FileWriter(historyPath, true)) {
            out.write(move);
        }
    }
}
