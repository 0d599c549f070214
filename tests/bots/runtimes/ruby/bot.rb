# The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
require "set"
$stdout.sync = true
puts "HELLO v1 #{ENV["HEXARENA_TOKEN"]} runtime-ruby"
drawn = Set.new
$stdin.each_line do |message|
  words = message.split
  case words[0]
  when "GAME"
    list = message[/"predrawn":\[([0-9,\s]*)\]/, 1]
    drawn = Set.new(list.split(",").map(&:to_i))
  when "DRAWN" then drawn << words[2].to_i
  when "TURN"
    line = 0
    line += 1 while drawn.include?(line)
    puts "MOVE #{words[1]} #{line}"
  when "BYE" then exit 0
  end
end
