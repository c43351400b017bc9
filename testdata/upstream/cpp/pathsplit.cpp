// pathsplit.cpp: the path splitter the C++ TsFile library takes from its ANTLR path parser
// (storage::PathNodesGenerator::invokeParser), for the plain dotted paths of this corpus
// (letters, digits and '_' only, no quoting): "root.sg.d1" -> {"root", "sg", "d1"}. Linking
// this instead of the parser keeps the ANTLR runtime out of the build; the device IDs and
// paths the library derives from it are the same for such paths.
//
// Own code of the tsarrow project.
#include <string>
#include <vector>

namespace storage {
class PathNodesGenerator {
 public:
  static std::vector<std::string> invokeParser(const std::string &path);
};
std::vector<std::string> PathNodesGenerator::invokeParser(const std::string &path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}
}  // namespace storage
