-- The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
io.stdout:setvbuf("line")
io.write("HELLO v1 ", os.getenv("HEXARENA_TOKEN") or "", " runtime-lua\n")
local drawn = {}
for message in io.lines() do
  local command, rest = message:match("^(%S+)%s*(.*)$")
  if command == "GAME" then
    drawn = {}
    for line in (message:match('"predrawn":%[([%d,%s]*)%]') or ""):gmatch("%d+") do
      drawn[tonumber(line)] = true
    end
  elseif command == "DRAWN" then
    drawn[tonumber(rest:match("^%d+%s+(%d+)"))] = true
  elseif command == "TURN" then
    local line = 0
    while drawn[line] do line = line + 1 end
    io.write("MOVE ", rest:match("^(%d+)"), " ", line, "\n")
  elseif command == "BYE" then
    os.exit(0)
  end
end
