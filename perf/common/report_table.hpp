// One table of results, printed as aligned text for people and as JSON for
// scripts, from the same rows: a cell holds the raw value (FLOP/s, bytes,
// seconds); a column says how text shows it (scale, precision) and its JSON key.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlk::perf {

// Where a column appears: text keeps to what a person reads at a glance, JSON
// may carry more (raw m, n, k beside a "256x256x256" text column, spreads).
enum class Show { both, text, json };

struct Column {
  std::string key;        // JSON member name, e.g. "flops_per_second": part of the schema
  std::string header;     // text heading, e.g. "GFLOP/s"
  double text_scale = 1;  // text shows value * text_scale (1e-9 for GFLOP/s)
  int precision = 2;      // digits after the point in text
  Show show = Show::both;
};

// Empty cells (std::monostate) print "-" in text and null in JSON.
using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;

class ReportTable {
 public:
  explicit ReportTable(std::vector<Column> columns);

  // Throws std::invalid_argument unless the row has one cell per column.
  void add_row(std::vector<Cell> row);

  const std::vector<Column> &columns() const { return columns_; }
  const std::vector<std::vector<Cell>> &rows() const { return rows_; }

  // Header line and one line per row of the text columns, two spaces apart;
  // numbers right-aligned, text left-aligned. Every line ends with '\n'.
  std::string text() const;

  // An array with one object per row: {key: raw value} of the JSON columns, in
  // column order. Integers stay integers; a non-finite double becomes null.
  nlohmann::ordered_json json() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace dlk::perf
