// The lowest free line, on JeroMQ (pure Java ZeroMQ, no ipc://: the manifest asks for transport = "tcp").
import java.util.HashSet;
import java.util.Set;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

public class Bot {
    public static void main(String[] args) {
        try (ZContext context = new ZContext()) {
            ZMQ.Socket socket = context.createSocket(ZMQ.DEALER);
            socket.setLinger(0);
            socket.connect(System.getenv("HEXARENA_ENDPOINT"));
            socket.send("HELLO v1 " + System.getenv("HEXARENA_TOKEN") + " runtime-java");
            Set<Integer> drawn = new HashSet<>();
            while (true) {
                String message = socket.recvStr().trim();
                String[] words = message.split(" +");
                switch (words[0]) {
                    case "GAME": {
                        drawn.clear();
                        int start = message.indexOf("\"predrawn\":[") + 12;
                        String list = message.substring(start, message.indexOf(']', start)).trim();
                        for (String line : list.isEmpty() ? new String[0] : list.split(",")) {
                            drawn.add(Integer.parseInt(line.trim()));
                        }
                        break;
                    }
                    case "DRAWN":
                        drawn.add(Integer.parseInt(words[2]));
                        break;
                    case "TURN": {
                        int line = 0;
                        while (drawn.contains(line)) line++;
                        socket.send("MOVE " + words[1] + " " + line);
                        break;
                    }
                    case "BYE":
                        return;
                    default:
                        break;
                }
            }
        }
    }
}
