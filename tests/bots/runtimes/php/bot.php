<?php
// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
fwrite(STDOUT, "HELLO v1 " . getenv("HEXARENA_TOKEN") . " runtime-php\n");
$drawn = [];
while (($message = fgets(STDIN)) !== false) {
    $words = preg_split('/\s+/', trim($message));
    switch ($words[0]) {
        case "GAME":
            $drawn = [];
            $game = json_decode(substr($message, 5), true);
            foreach ($game["predrawn"] as $line) $drawn[$line] = true;
            break;
        case "DRAWN":
            $drawn[(int)$words[2]] = true;
            break;
        case "TURN":
            for ($line = 0; isset($drawn[$line]); $line++);
            fwrite(STDOUT, "MOVE {$words[1]} $line\n");
            break;
        case "BYE":
            exit(0);
    }
}
