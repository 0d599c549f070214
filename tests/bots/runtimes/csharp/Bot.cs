// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
using System;
using System.Collections.Generic;
using System.Text.RegularExpressions;

class Bot {
    static void Main() {
        var output = Console.Out;
        output.WriteLine("HELLO v1 " + Environment.GetEnvironmentVariable("HEXARENA_TOKEN") + " runtime-csharp");
        output.Flush();
        var drawn = new HashSet<int>();
        string message;
        while ((message = Console.In.ReadLine()) != null) {
            var words = message.Split(' ');
            if (words[0] == "GAME") {
                drawn.Clear();
                var list = Regex.Match(message, "\"predrawn\":\\[([0-9,\\s]*)\\]").Groups[1].Value;
                foreach (var line in list.Split(new[] {',', ' '}, StringSplitOptions.RemoveEmptyEntries))
                    drawn.Add(int.Parse(line));
            } else if (words[0] == "DRAWN") {
                drawn.Add(int.Parse(words[2]));
            } else if (words[0] == "TURN") {
                int line = 0;
                while (drawn.Contains(line)) line++;
                output.WriteLine("MOVE " + words[1] + " " + line);
                output.Flush();
            } else if (words[0] == "BYE") {
                return;
            }
        }
    }
}
