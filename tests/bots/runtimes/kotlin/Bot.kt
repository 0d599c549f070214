// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
fun main() {
    println("HELLO v1 ${System.getenv("HEXARENA_TOKEN") ?: ""} runtime-kotlin")
    System.out.flush()
    val drawn = HashSet<Int>()
    while (true) {
        val message = readLine() ?: return
        val words = message.split(" ")
        when (words[0]) {
            "GAME" -> {
                drawn.clear()
                val list = Regex("\"predrawn\":\\[([0-9,\\s]*)\\]").find(message)?.groupValues?.get(1) ?: ""
                list.split(",").mapNotNull { it.trim().toIntOrNull() }.forEach { drawn.add(it) }
            }
            "DRAWN" -> drawn.add(words[2].toInt())
            "TURN" -> {
                var line = 0
                while (line in drawn) line++
                println("MOVE ${words[1]} $line")
                System.out.flush()
            }
            "BYE" -> return
        }
    }
}
