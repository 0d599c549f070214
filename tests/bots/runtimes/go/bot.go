// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	fmt.Printf("HELLO v1 %s runtime-go\n", os.Getenv("HEXARENA_TOKEN"))
	drawn := map[int]bool{}
	input := bufio.NewScanner(os.Stdin)
	input.Buffer(make([]byte, 1<<20), 1<<21)
	for input.Scan() {
		message := strings.TrimSpace(input.Text())
		words := strings.Fields(message)
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "GAME":
			drawn = map[int]bool{}
			start := strings.Index(message, `"predrawn":[`) + len(`"predrawn":[`)
			list := message[start : start+strings.Index(message[start:], "]")]
			for _, line := range strings.Split(list, ",") {
				if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
					drawn[n] = true
				}
			}
		case "DRAWN":
			n, _ := strconv.Atoi(words[2])
			drawn[n] = true
		case "TURN":
			line := 0
			for drawn[line] {
				line++
			}
			fmt.Printf("MOVE %s %d\n", words[1], line)
		case "BYE":
			return
		}
	}
}
