#include "perf/common/report_table.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace dlk::perf {
namespace {

bool is_text(const Cell &cell) { return std::holds_alternative<std::string>(cell); }

std::string cell_text(const Cell &cell, const Column &column) {
  if (const auto *s = std::get_if<std::string>(&cell)) return *s;
  if (const auto *i = std::get_if<std::int64_t>(&cell)) {
    if (column.text_scale == 1) return fmt::format("{}", *i);
    return fmt::format("{:.{}f}", static_cast<double>(*i) * column.text_scale, column.precision);
  }
  if (const auto *d = std::get_if<double>(&cell)) {
    if (!std::isfinite(*d)) return "-";
    return fmt::format("{:.{}f}", *d * column.text_scale, column.precision);
  }
  return "-";
}

nlohmann::ordered_json cell_json(const Cell &cell) {
  if (const auto *s = std::get_if<std::string>(&cell)) return *s;
  if (const auto *i = std::get_if<std::int64_t>(&cell)) return *i;
  if (const auto *d = std::get_if<double>(&cell)) {
    if (std::isfinite(*d)) return *d;
  }
  return nullptr;
}

}  // namespace

ReportTable::ReportTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void ReportTable::add_row(std::vector<Cell> row) {
  if (row.size() != columns_.size())
    throw std::invalid_argument(fmt::format("report row has {} cells for {} columns", row.size(),
                                            columns_.size()));
  rows_.push_back(std::move(row));
}

std::string ReportTable::text() const {
  std::vector<size_t> shown;
  for (size_t c = 0; c < columns_.size(); ++c)
    if (columns_[c].show != Show::json) shown.push_back(c);
  const size_t ncol = shown.size();

  std::vector<std::vector<std::string>> cells(rows_.size(), std::vector<std::string>(ncol));
  std::vector<size_t> width(ncol);
  // A column is left-aligned when it holds text; an all-empty column counts as numbers.
  std::vector<bool> left(ncol, false);
  for (size_t i = 0; i < ncol; ++i) width[i] = columns_[shown[i]].header.size();
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t i = 0; i < ncol; ++i) {
      const Cell &cell = rows_[r][shown[i]];
      cells[r][i] = cell_text(cell, columns_[shown[i]]);
      width[i] = std::max(width[i], cells[r][i].size());
      if (is_text(cell)) left[i] = true;
    }
  }
  auto line = [&](auto &&text_of) {
    std::string out;
    for (size_t i = 0; i < ncol; ++i) {
      if (i > 0) out += "  ";
      const std::string &t = text_of(i);
      if (!left[i])
        out += fmt::format("{:>{}}", t, width[i]);
      else if (i + 1 < ncol)
        out += fmt::format("{:<{}}", t, width[i]);
      else
        out += t;  // no trailing blanks
    }
    return out + '\n';
  };
  std::string out = line([&](size_t i) -> const std::string & { return columns_[shown[i]].header; });
  for (size_t r = 0; r < rows_.size(); ++r)
    out += line([&](size_t i) -> const std::string & { return cells[r][i]; });
  return out;
}

nlohmann::ordered_json ReportTable::json() const {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto &row : rows_) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    for (size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c].show != Show::text) object[columns_[c].key] = cell_json(row[c]);
    rows.push_back(std::move(object));
  }
  return rows;
}

}  // namespace dlk::perf
