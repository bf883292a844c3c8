#include "xml_well_formed.hpp"

#include <cctype>
#include <cstring>
#include <vector>

namespace dlk::perf::test {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-.:", c); }

class Parser {
 public:
  explicit Parser(const std::string &xml) : s_(xml) {}

  std::string run(const std::string &root) {
    std::vector<std::string> open;
    int roots = 0;
    while (i_ < s_.size()) {
      if (s_[i_] != '<') {
        if (open.empty() && !std::isspace(static_cast<unsigned char>(s_[i_]))) return at("text outside the root");
        if (!text_char()) return at("bad character or entity in text");
        continue;
      }
      if (skip("<?", "?>") || skip("<!--", "-->")) continue;
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        const std::string name = read_name();
        if (open.empty() || name != open.back()) return at("</" + name + "> closes nothing open");
        open.pop_back();
        if (!expect('>')) return at("'>' expected");
        continue;
      }
      ++i_;
      const std::string name = read_name();
      if (name.empty()) return at("element name expected");
      if (open.empty() && (++roots > 1 || name != root)) return at("root element is not the one <" + root + ">");
      for (;;) {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
        if (s_.compare(i_, 2, "/>") == 0) {
          i_ += 2;
          break;
        }
        if (expect('>')) {
          open.push_back(name);
          break;
        }
        if (read_name().empty() || !expect('=')) return at("attribute of <" + name + "> expected");
        if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return at("unquoted attribute value");
        const char quote = s_[i_++];
        while (i_ < s_.size() && s_[i_] != quote)
          if (!text_char()) return at("bad character or entity in an attribute value");
        if (!expect(quote)) return at("unterminated attribute value");
      }
    }
    if (!open.empty()) return "<" + open.back() + "> is never closed";
    if (roots == 0) return "no root element";
    return "";
  }

 private:
  std::string at(const std::string &what) const { return what + " at offset " + std::to_string(i_); }

  bool skip(const char *start, const char *end) {
    if (s_.compare(i_, std::strlen(start), start) != 0) return false;
    const size_t close = s_.find(end, i_);
    i_ = close == std::string::npos ? s_.size() : close + std::strlen(end);
    return true;
  }

  std::string read_name() {
    const size_t from = i_;
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    return s_.substr(from, i_ - from);
  }

  bool expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }

  // One character of text or an attribute value, or one entity.
  bool text_char() {
    if (s_[i_] == '<') return false;
    if (s_[i_] != '&') return ++i_, true;
    for (const char *entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (s_.compare(i_, std::strlen(entity), entity) == 0) return i_ += std::strlen(entity), true;
    if (s_.compare(i_, 2, "&#") != 0) return false;
    const size_t end = s_.find(';', i_);
    if (end == std::string::npos || end == i_ + 2) return false;
    i_ = end + 1;
    return true;
  }

  const std::string &s_;
  size_t i_ = 0;
};

}  // namespace

std::string xml_problem(const std::string &xml, const std::string &root) { return Parser(xml).run(root); }

}  // namespace dlk::perf::test
