// backends/cuda/pool2d_geometry.hpp: the pooling backward kernel gathers each
// input element from the outputs whose windows hold it; checked here against
// enumerating every window, for every small shape dlk.h allows.
#include <catch2/catch.hpp>

#include <vector>

#include "backends/cuda/pool2d_geometry.hpp"

using dlk::cuda::PoolGeometry;

TEST_CASE("pool2d geometry: covering_outputs is exactly the outputs whose window holds the element",
          "[cuda][pool2d]") {
  int shapes = 0;
  for (int64_t h = 1; h <= 9; ++h)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t stride = 1; stride <= 4; ++stride)
        for (int64_t pad = 0; pad <= k / 2; ++pad) {
          if (h + 2 * pad < k) continue;
          const int64_t outputs = (h + 2 * pad - k) / stride + 1;
          PoolGeometry g{1, 1, h, 1, outputs, 1, k, 1, stride, 1, pad, 0, false, DLK_POOL_MAX};
          ++shapes;
          for (int64_t y = 0; y < h; ++y) {
            std::vector<int64_t> expected;
            for (int64_t oy = 0; oy < outputs; ++oy) {
              int64_t y0, y1, x0, x1;
              g.window(oy, 0, y0, y1, x0, x1);
              if (y >= y0 && y < y1) expected.push_back(oy);
            }
            int64_t first, last;
            dlk::cuda::covering_outputs(y, pad, k, stride, outputs, first, last);
            std::vector<int64_t> got;
            for (int64_t oy = first; oy <= last; ++oy) got.push_back(oy);
            INFO("h " << h << " k " << k << " stride " << stride << " pad " << pad << " y " << y);
            CHECK(got == expected);
          }
        }
  CHECK(shapes > 300);
}

TEST_CASE("pool2d geometry: every clipped window holds an image element; divisors by kind",
          "[cuda][pool2d]") {
  PoolGeometry g{1, 1, 5, 5, 3, 3, 3, 3, 2, 2, 1, 1, false, DLK_POOL_AVG_EXCLUDE_PADDING};
  int64_t y0, y1, x0, x1;
  g.window(0, 0, y0, y1, x0, x1);
  CHECK((y0 == 0 && y1 == 2 && x0 == 0 && x1 == 2));
  CHECK(g.divisor(y0, y1, x0, x1) == 4);
  g.kind = DLK_POOL_AVG_INCLUDE_PADDING;
  CHECK(g.divisor(y0, y1, x0, x1) == 9);
  g.window(1, 2, y0, y1, x0, x1);
  CHECK((y0 == 1 && y1 == 4 && x0 == 3 && x1 == 5));
}

TEST_CASE("pool2d geometry: plane offsets in NCHW and NHWC", "[cuda][pool2d]") {
  PoolGeometry g{2, 3, 4, 5, 2, 2, 2, 2, 2, 2, 0, 0, false, DLK_POOL_MAX};
  CHECK(g.src_plane(4) == 4 * 20);  // image 1, channel 1
  CHECK(g.dst_plane(4) == 4 * 4);
  CHECK(g.pixel_stride() == 1);
  g.nhwc = true;
  CHECK(g.src_plane(4) == 1 * 20 * 3 + 1);
  CHECK(g.dst_plane(4) == 1 * 4 * 3 + 1);
  CHECK(g.pixel_stride() == 3);
}
