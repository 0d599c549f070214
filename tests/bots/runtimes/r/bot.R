# The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
input <- file("stdin", "r")
cat("HELLO v1", Sys.getenv("HEXARENA_TOKEN"), "runtime-r\n")
drawn <- integer(0)
repeat {
  message <- readLines(input, n = 1)
  if (length(message) == 0) break
  words <- strsplit(message, " ", fixed = TRUE)[[1]]
  if (words[1] == "GAME") {
    list <- sub('.*"predrawn":\\[([0-9, ]*)\\].*', "\\1", message)
    drawn <- if (nzchar(trimws(list))) as.integer(strsplit(list, ",", fixed = TRUE)[[1]]) else integer(0)
  } else if (words[1] == "DRAWN") {
    drawn <- c(drawn, as.integer(words[3]))
  } else if (words[1] == "TURN") {
    line <- 0L
    while (line %in% drawn) line <- line + 1L
    cat("MOVE", words[2], line, "\n")
  } else if (words[1] == "BYE") {
    quit(status = 0)
  }
}
