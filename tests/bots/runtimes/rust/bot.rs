// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
use std::collections::HashSet;
use std::io::{self, BufRead, Write};

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let token = std::env::var("HEXARENA_TOKEN").unwrap_or_default();
    writeln!(out, "HELLO v1 {} runtime-rust", token).unwrap();
    out.flush().unwrap();
    let mut drawn: HashSet<u32> = HashSet::new();
    for line in io::stdin().lock().lines() {
        let message = line.unwrap();
        let words: Vec<&str> = message.split_whitespace().collect();
        match words.first().copied() {
            Some("GAME") => {
                drawn.clear();
                let key = "\"predrawn\":[";
                let start = message.find(key).unwrap() + key.len();
                let end = start + message[start..].find(']').unwrap();
                drawn.extend(message[start..end].split(',').filter_map(|n| n.trim().parse::<u32>().ok()));
            }
            Some("DRAWN") => {
                drawn.insert(words[2].parse().unwrap());
            }
            Some("TURN") => {
                let mut free = 0;
                while drawn.contains(&free) {
                    free += 1;
                }
                writeln!(out, "MOVE {} {}", words[1], free).unwrap();
                out.flush().unwrap();
            }
            Some("BYE") => return,
            _ => {}
        }
    }
}
