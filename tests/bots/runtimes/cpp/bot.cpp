// The lowest free line, on the stdio bridge: protocol lines on stdin and stdout.
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

int main() {
    const char *token = std::getenv("HEXARENA_TOKEN");
    std::cout << "HELLO v1 " << (token ? token : "") << " runtime-cpp" << std::endl;
    std::set<long> drawn;
    std::string message;
    while (std::getline(std::cin, message)) {
        std::istringstream words(message);
        std::string command;
        words >> command;
        if (command == "GAME") {
            drawn.clear();
            const std::string key = "\"predrawn\":[";
            size_t start = message.find(key) + key.size();
            std::istringstream list(message.substr(start, message.find(']', start) - start));
            std::string line;
            while (std::getline(list, line, ','))
                if (!line.empty()) drawn.insert(std::stol(line));
        } else if (command == "DRAWN") {
            std::string seat;
            long line;
            words >> seat >> line;
            drawn.insert(line);
        } else if (command == "TURN") {
            std::string id;
            words >> id;
            long line = 0;
            while (drawn.count(line)) line++;
            std::cout << "MOVE " << id << " " << line << std::endl;
        } else if (command == "BYE") {
            return 0;
        }
    }
    return 0;
}
