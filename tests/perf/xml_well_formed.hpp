// A well-formedness check of the XML dlk-perf writes (its SVG charts): one
// root element, tags nested and closed, attributes quoted, every '&' an
// entity, no '<' in text or attribute values. Enough to catch a writer's
// mistakes without an XML library; Chromium parses them fully in
// perf:charts_render_in_chromium.
#pragma once

#include <string>

namespace dlk::perf::test {

// Empty when `xml` is well-formed with root element `root`; else what is wrong and where.
std::string xml_problem(const std::string &xml, const std::string &root);

}  // namespace dlk::perf::test
