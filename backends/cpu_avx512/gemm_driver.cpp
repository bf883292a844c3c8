// The blocked GEMM: BLIS's five loops around a micro-kernel (Van Zee and van de
// Geijn, TOMS 2015), for one batch entry
//
//   for j0 in steps of NC:                 columns of C and B
//     for p0 in steps of KC:               k
//       pack B[p0:+KC, j0:+NC]             once, by all threads together, shared
//       for i0 in steps of MC:             rows of C and A   (split over threads)
//         pack A[i0:+MC, p0:+KC]           by the thread that owns the rows
//         for jr in steps of NR:           micro-panels of B (split too when
//           for ir in steps of MR:         there are fewer row blocks than threads)
//             micro-kernel: MR x NR tile of C (+)= A panel * B panel
//
// The micro-kernel fuses the store into the tile. When C has the accumulator's
// type (f32 for float GEMM, s32 for int8) and unit column stride, C itself
// accumulates the k blocks (the first one applies beta, the rest add, the last
// one adds the bias and applies ReLU); any other C (f16/bf16, requantized int8,
// dequantized f32, column strides) accumulates in a workspace of the block's
// rows and is stored once after the last k block, epilogue included, so
// f16/bf16 round once and int8 requantizes once.
#include "backends/cpu_avx512/gemm_driver.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backends/cpu_avx512/gemm_epilogue.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/gemm_paths.hpp"
#include "backends/cpu_avx512/gemm_scratch.hpp"
#include "backends/cpu_avx512/gemm_gemv.hpp"
#include "backends/cpu_avx512/gemm_unpacked.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// Below this many MR-row micro-rows per thread, threads share the micro-panels
// of B rather than the rows: a share of one micro-row more or less would
// unbalance them by more than a quarter.
constexpr int64_t kMinMicroRowsPerThread = 4;
// The workspace of a C that cannot accumulate in place is at most this large;
// NC shrinks to fit it.
constexpr int64_t kWorkspaceBytes = int64_t{8} << 20;
constexpr int64_t kLine = 64;
// B is read in place (reads_b_in_place) only under an A block (m x KC) of at
// most this many elements, 256 KiB of f32.
constexpr int64_t kMaxABlockForBInPlace = int64_t{64} << 10;
// B's rows a multiple of 4 KiB apart are read in place only under at most this
// many rows of C (reads_b_in_place).
constexpr int64_t kMaxRowsForAliasedB = 256;

// Whether rows `stride` elements of `elem` bytes apart are a multiple of 4 KiB
// apart (without forming stride x elem: validation lets a stride that k = 1
// never uses be anything).
bool rows_4k_apart(int64_t stride, int64_t elem) { return stride % (4096 / elem) == 0; }

// k blocks of equal length, at most max_kc and a multiple of k_group: k = 576
// as two of 288 rather than 512 and a 64 whose C tile loads and stores weigh
// eight times as much.
int64_t k_block(int64_t k, int64_t max_kc, int64_t k_group) {
  return std::max<int64_t>(
      1, round_up(ceil_div(k, std::max<int64_t>(1, ceil_div(k, max_kc))), k_group));
}

// f32 B read in place with its rows a multiple of 4 KiB apart (1024 or 2048
// channels of weights) runs k blocks of at most kAliasedBKc rows where KC
// would be longer than 2 kAliasedBKc. Its micro-panel's lines share a set of
// L1, so every micro-row of C fetches the panel again from farther out, and a
// long one fell out of L2 (more than half of L2 / the rows' distance; a
// hypothesis: no counters here). Intel Xeon model 167, 1 thread, dlk_gemm m x
// n x k with A transposed (res5's 1x1 backward data at batch 1), KC 512 ->
// 128: 49 x 2048 x 512 (rows 8 KiB apart) 96 -> 154 GFLOP/s (a packed B:
// 132), 70 and 98 rows 1.7x, 49 x 1024 x 2048 (4 KiB) 82 -> 149 (packed
// 132-144); at KC 192 both ran 128-135. A k of 256 (98-196 x 1024 x 256, 4
// KiB) ran 0.94-0.97x in two blocks of 128: its C tile loaded and stored twice.
constexpr int64_t kAliasedBKc = 128;

// f32 B read in place whose k rows span more than this (k x its row stride)
// has its rows fetched into L2 kFarPrefetchSteps k steps ahead too
// (F32Tile::b_far; rows a multiple of 4 KiB apart excepted, which it slowed):
// the first micro-row of C over a panel waits on every row from L3 otherwise,
// rows far apart, which the hardware prefetcher does not follow. Intel Xeon
// model 167, 1 thread, dlk_gemm with A transposed (the weights of res5's
// backward data as B): 49 x 4608 x 512 111-124 -> 159-160 GFLOP/s, 49 x 512 x
// 2048 126-129 -> 154 (32 and 48 steps ahead: 151-159); NCHW res5a_3x3's
// backward data, B 252 columns of the 4608, 1.08x. A B in L2 (64 x 3136 x 64,
// 256 x 196 x 256) lost 3-8 % to the extra prefetches, res2a_1x1a's NCHW
// forward (src, 800 KB, as B) 0.97x.
constexpr int64_t kFarPrefetchBBytes = int64_t{1} << 20;
constexpr int64_t kFarPrefetchSteps = 16;

// Whether n columns make so few micro-panels of B (nr wide), up to 8, that A
// is read in place at any size.
bool few_panels_of_b(int64_t n, int64_t nr) { return ceil_div(n, nr) <= 8; }

// A's rows (or columns) a multiple of 4 KiB apart share one set of L1 (64 sets
// of 64-byte lines on Zen 4 and 5), which has 12 ways for a micro-panel's 14
// rows: their lines evict each other between k steps. Read in place, f32 and
// bf16 rows so apart run in micro-rows of this many, whose lines fit the set
// beside B's. Against packing (AMD EPYC Zen 5, batch 1, ResNet-50 forward, 1
// and 2 threads): f32 res5a_proj 1.22-1.33x, res5b_1x1a 1.09-1.16x, res4b_1x1a
// and res5a_1x1a 1.02-1.20x; in micro-rows of 14 these ran level at 1 thread
// but 0.95-0.96x (res4b_1x1a, res5a_1x1a NCHW) at 2, and an earlier sitting
// measured res5b_1x1a NCHW at 0.66-0.76x so; bf16 res5b_1x1a NCHW (2048
// channels) 1.16x / 1.03x, its GEMM (512 x 49 x 2048) 1.12x / 1.19x. int8 rows
// so apart (4096 channels) are packed, not measured.
constexpr int kAliasedRowsMr = 10;

// Whether Path's kernels read A's rows 4 KiB apart in place (in micro-rows of
// kAliasedRowsMr).
template <class Path>
constexpr bool reads_aliased_rows =
    Path::packed_a == PackedType::f32 || Path::packed_a == PackedType::bf16_pairs;

// Whether `kernel` reads A where it lies instead of packing it: an A already in
// the packed type with k contiguous, with an even row count (kernels run even
// row counts, and must not read a row past the matrix) and k a whole number of
// k-groups; and either so small that its rows stay in L1 between the
// micro-panels of B (packing A was a tenth of a 64^3 bf16 or int8 call; at
// 64 KiB, more than an L1 of 48, f32 res2a_1x1b's weights, 256 x 64, ran
// 0.72-0.75x -> 0.78-0.82x oneDNN-any packed: Intel Xeon model 167), or of
// any size under so few micro-panels of B that a packed copy would be read only
// a few times: packing is then a pass over A nearly as long as the kernel's
// own (a convolution's weights at batch 1, 49 pixels in 2 panels: 1.10-1.24x
// on ResNet-50's res5 1x1 layers, 196 in 7: 1.02-1.12x; docs/cpu_gemm.md);
// rows 4 KiB apart only in f32 and bf16, in micro-rows of kAliasedRowsMr;
// s8 A only where B has no zero point (its row sums come from packing A).
template <class Path>
bool reads_a_in_place(const core::GemmArgs &g,
                      const GemmKernel<typename Path::Microkernel> &kernel) {
  constexpr int64_t kMaxBytes = int64_t{32} << 10;
  const int64_t elem = int64_t{sizeof(typename Path::PackedA)};
  if constexpr (Path::row_sums)
    if (Path::b_zero(g) != 0) return false;  // the row sums come from packing A
  if (a_by_rows<Path> && rows_4k_apart(g.a.rs, elem)) return false;
  return kernel.reads_a_in_place && g.a.dtype == Path::packed_a_dtype && g.a.cs == 1 &&
         g.k > 0 && g.k % Path::k_group == 0 && g.m % 2 == 0 && g.a.rs > 0 &&
         (g.a.rs <= kMaxBytes / elem / g.m ||
          (few_panels_of_b(g.n, kernel.blocking.nr) &&
           (reads_aliased_rows<Path> || !rows_4k_apart(g.a.rs, elem))));
}

// Whether `kernel` reads A's columns where they lie instead of packing it: f32
// A with contiguous rows (each k step's rows side by side: the transposed
// diff_dst of a 1x1 NHWC weight gradient, a pixel's channels together), an even
// row count, under few micro-panels of B (few_panels_of_b), where a packed copy
// of A would be read only a few times: packing it took a third of ResNet-50
// res2a_1x1b's NHWC weight gradient (256 x 64 x 3136, 2 panels). Columns 4 KiB
// apart are packed (see kAliasedRowsMr).
template <class Path>
bool reads_a_columns_in_place(const core::GemmArgs &g,
                              const GemmKernel<typename Path::Microkernel> &kernel) {
  return Path::packed_a == PackedType::f32 && kernel.reads_a_columns_in_place &&
         g.a.dtype == DLK_DTYPE_F32 && g.a.rs == 1 && g.a.cs > 0 && g.k > 0 && g.m % 2 == 0 &&
         few_panels_of_b(g.n, kernel.blocking.nr) &&
         !rows_4k_apart(g.a.cs, int64_t{sizeof(float)});
}

// Whether `kernel` reads B's rows where they lie, in k blocks of kc, instead of
// packing them: a B of the packed type (f32, or bf16 rows that the kernel interleaves into
// k-pairs, k even) with contiguous columns, for a C of so few rows that one pass
// over B to pack it weighs (a 1x1 convolution, 64 output channels over 3136
// pixels, spent a tenth of its time packing B); the threads then share no B
// block and pass no barriers. A KC x NR micro-panel in place spans up to KC
// pages, which each micro-row walks again: with many rows and a long KC that
// cost more than packing. Measured on Zen 4 (dlk_gemm f32, 1 and 2 threads,
// in place / packed): 64 x 3136 x 64 1.08x / 1.09x, 64 x 3136 x 256 1.08x /
// 1.12x, 256 x 196 x 1024 1.00x / 1.32x, but 256 x 3136 x 576 0.79x / 0.91x
// and 1024 x 784 x 1024 0.85x / 0.95x: hence a bound on m x KC.
//
// bf16 rows are interleaved into k-pairs by every micro-row that reads them
// (two vpermt2w a pair), and a pair spans two rows: in place only under at
// most 128 rows of C, KC up to 512 and rows not a multiple of 4 KiB apart
// (which share one set of L1). Against packing (AMD EPYC Zen 5, batch 1,
// 1 and 2 threads): ResNet-50's bf16 1x1 forward NCHW over 64-128 output
// channels 1.08-1.40x, NHWC backward data of res4-res5 3x3 1.4-2.0x; beyond
// those bounds 0.77-0.89x (res5's 1x1 backward data, 49 rows of C, KC 1024
// or rows 4 KiB apart; res4b_1x1a's NHWC weight gradient, 256 rows).
//
// f32 rows 4 KiB apart share one set of L1 too: the lines prefetched ahead
// evict each other, and every micro-row fetches the panel from L2 again. In
// place only under at most kMaxRowsForAliasedB rows of C, where packing B
// would be a pass over all of it for few micro-rows (AMD EPYC Zen 5, batch
// 1, 1 thread, against packing: res5b_1x1a's NHWC weight gradient, 512 rows
// over 49 src rows 8 KiB apart, 0.90x in place; NHWC backward data of
// res5b_1x1a and res5a_proj, 49 rows of C over weights rows 8 KiB apart,
// 1.35-1.49x in place, res4b_1x1a's, 196 rows, 1.08-1.49x).
template <class Path>
bool reads_b_in_place(const core::GemmArgs &g,
                      const GemmKernel<typename Path::Microkernel> &kernel, int64_t kc) {
  const bool paired = Path::packed_b == PackedType::bf16_pairs;
  const bool aliased = rows_4k_apart(g.b.rs, int64_t{sizeof(typename Path::PackedB)});
  return kernel.reads_b_in_place && g.b.dtype == Path::packed_b_dtype && g.b.cs == 1 &&
         g.k > 0 && g.k % Path::k_group == 0 && g.m * kc <= kMaxABlockForBInPlace &&
         (!aliased || g.m <= kMaxRowsForAliasedB) &&
         (!paired || (g.m <= 128 && kc <= 512 && !aliased));
}

// Columns [first, first + count) of a packed micro-panel of B, nr 32-bit
// elements (an f32, a bf16 k-pair, an int8 k-quad) a k step over `steps`
// steps, copied a column at a time into out, ld elements apart, zeros past
// `steps` and in the columns after them up to kMaxTailColumns: the tail
// columns a kernel sums along k (F32Tile::b_tail, S32Tile::b_tail).
void copy_tail_columns(const void *panel, int64_t nr, int64_t first, int count, int64_t steps,
                       int64_t ld, float *out) {
  const char *elements = static_cast<const char *>(panel);
  std::fill(out, out + kernels::kMaxTailColumns * ld, 0.0f);
  for (int t = 0; t < count; ++t)
    for (int64_t u = 0; u < steps; ++u)
      std::memcpy(out + t * ld + u, elements + sizeof(float) * (u * nr + first + t),
                  sizeof(float));
}

// Runs the five loops for one batch entry at a time. A "group" of threads shares
// one packed B block (and one workspace); each thread has its own A block.
template <class Path>
class BlockedGemm {
  using PackedA = typename Path::PackedA;
  using PackedB = typename Path::PackedB;
  using Acc = typename Path::Acc;

 public:
  // B from `b_packer`, or from g.b where that is null (packed, or read in place).
  BlockedGemm(const core::GemmArgs &g, const GemmKernelSet &set, const BPanelPacker *b_packer,
              const APanelPacker *a_packer, int groups, int threads)
      : g_(g),
        kernel_(Path::kernel(set)),
        pack_kernels_(set.pack),
        set_(set),
        strided_(g, set.pack),
        b_packer_(b_packer ? *b_packer : strided_),
        a_packer_(a_packer),
        in_place_(Path::in_place(g)),
        stores_in_tile_(Path::stores_in_tile(g, kernel_)),
        whole_rule_(in_place_ || stores_in_tile_) {
    const GemmBlocking &blk = kernel_.blocking;
    a_in_place_ = !a_packer && reads_a_in_place<Path>(g, kernel_);
    a_columns_in_place_ = !a_packer && !a_in_place_ && reads_a_columns_in_place<Path>(g, kernel_);
    const bool aliased_rows = a_in_place_ && rows_4k_apart(g.a.rs, int64_t{sizeof(PackedA)});
    mr_ = aliased_rows ? kAliasedRowsMr : blk.mr, nr_ = blk.nr;
    // The largest row block; a thread's share of the rows is cut into blocks of
    // equal size up to this (run_entry).
    mc_ = std::min<int64_t>(blk.mc, round_up(g.m, mr_));
    // AMX: k blocks of whole tile steps, no tail copied in each.
    kc_ = k_block(g.k, blk.kc,
                  a_by_rows<Path> ? 64 / int64_t{sizeof(PackedA)} : Path::k_group);
    b_in_place_ = !b_packer && reads_b_in_place<Path>(g, kernel_, kc_);
    if (b_in_place_ && Path::packed_b == PackedType::f32) {
      if (rows_4k_apart(g.b.rs, int64_t{sizeof(PackedB)})) {
        if (kc_ > 2 * kAliasedBKc) kc_ = k_block(g.k, kAliasedBKc, Path::k_group);
      } else if (g.b.rs > kFarPrefetchBBytes / int64_t{sizeof(PackedB)} / g.k) {
        b_far_ = kFarPrefetchSteps * g.b.rs;
      }
    }
    int64_t nc_max = blk.nc;
    // A B converted while packing (bf16 widened to f32, f16) under a single row
    // block is read only by that block's few micro-rows: packed NC wide (up to
    // 4096 columns, half the L3) it went out to L3 and back, and packing took
    // longer than the products (bf16 NHWC res5b_3x3 backward data, 49 x 4608 x
    // 512 on Intel). At most MC columns keep the block in half of L2, as A's:
    // NHWC 3x3 backward data 1.18-1.31x, res5a_1x1b forward 1.18-1.24x, the
    // NCHW 1x1 layers level (Intel Xeon model 167, bf16, batch 1).
    if (g.m <= blk.mc && g.b.dtype != Path::packed_b_dtype && !b_packer)
      nc_max = std::min(nc_max, round_up(blk.mc, nr_));
    if (!in_place_)
      nc_max = std::min(nc_max, std::max<int64_t>(
                                    nr_, kWorkspaceBytes / int64_t{sizeof(Acc)} / g.m / nr_ * nr_));
    // Column blocks of equal width too (n = 4097 as two of 2080, not 4096 and 1).
    nc_ = round_up(ceil_div(g.n, std::max<int64_t>(1, ceil_div(g.n, nc_max))), nr_);
    k_blocks_ = std::max<int64_t>(1, ceil_div(g.k, kc_));
    // Every block starts on a cache line; k is padded to the kernel's groups.
    const int64_t kc_padded = round_up(kc_, Path::k_group);
    // A tile's columns past its whole vectors of 16 as dot products along k
    // (F32Tile::b_tail, S32Tile::b_tail), where A's rows are read in place:
    // res5's 49 pixels at batch 1 are 32 + 17 columns, of which a vector of
    // 16 columns computed 15 in vain.
    sums_tails_ = kernel_.sums_tail_columns && a_in_place_ && !b_in_place_ &&
                  kc_padded / Path::k_group <= kernels::kMaxTailSteps;
    tail_size_ = sums_tails_ ? kernels::kMaxTailColumns * kernels::kMaxTailSteps : 0;
    b_size_ = b_in_place_ ? 0 : round_up(kc_padded * nc_, kLine);
    a_size_ = round_up(mc_ * kc_padded, kLine);
    if constexpr (Path::col_sums) sums_needed_ = Path::a_zero(g) != 0;
    if constexpr (Path::row_sums) sums_needed_ = Path::b_zero(g) != 0;
    // Column sums per group (of its B block), row sums per thread (of its A block).
    sums_size_ = !sums_needed_ ? 0 : round_up(Path::col_sums ? nc_ : mc_, kLine);
    // Workspace rows a multiple of 4 KiB apart would put a C tile's rows in one
    // set of L1 (kAliasedRowsMr): a line more keeps them apart. ResNet-50's NCHW
    // backward data at batch 1 into column-major C, 1024 and 2048 columns:
    // res4b_1x1a 1.23x, res5b_1x1a 1.05x (Intel Xeon model 167, 1 thread).
    ws_ld_ = nc_ + (rows_4k_apart(nc_, int64_t{sizeof(Acc)}) ? kLine / int64_t{sizeof(Acc)} : 0);
    ws_size_ = in_place_ ? 0 : round_up(g.m * ws_ld_, kLine);
    const int64_t b_bytes = b_size_ * groups * int64_t{sizeof(PackedB)};
    const int64_t a_bytes = a_size_ * threads * int64_t{sizeof(PackedA)};
    const int64_t sums_bytes =
        sums_size_ * (Path::col_sums ? groups : threads) * int64_t{sizeof(int32_t)};
    const int64_t tail_bytes = tail_size_ * threads * int64_t{sizeof(float)};
    char *scratch = static_cast<char *>(gemm_scratch(static_cast<size_t>(
        b_bytes + a_bytes + sums_bytes + tail_bytes + ws_size_ * groups * int64_t{sizeof(Acc)})));
    b_packs_ = reinterpret_cast<PackedB *>(scratch);
    a_packs_ = reinterpret_cast<PackedA *>(scratch + b_bytes);
    sums_ = reinterpret_cast<int32_t *>(scratch + b_bytes + a_bytes);
    tails_ = reinterpret_cast<float *>(scratch + b_bytes + a_bytes + sums_bytes);
    workspaces_ =
        reinterpret_cast<Acc *>(scratch + b_bytes + a_bytes + sums_bytes + tail_bytes);
  }

  const char *kernel_name() const { return kernel_.name; }

 private:
 public:

  // Batch entry `batch` by the `members` threads of group `group`, of which the
  // caller is `member`; `thread` indexes the caller's own scratch.
  void run_entry(int64_t batch, int group, int member, int members, int thread) {
    PackedB *b_pack = b_packs_ + b_size_ * group;
    PackedA *a_pack = a_packs_ + a_size_ * thread;
    int32_t *sums = sums_ + sums_size_ * (Path::col_sums ? group : thread);
    Acc *workspace = workspaces_ + ws_size_ * group;
    // C itself only when it has the accumulator's type.
    Acc *c = in_place_ ? static_cast<Acc *>(g_.c) + batch * g_.batch_stride_c : nullptr;
    // The threads' shares: with enough rows, a contiguous range of MR-row
    // micro-rows each (so each packs only its own rows of A, and the shares
    // differ by one micro-row at most), cut into row blocks of at most MC; with
    // too few rows for that, every thread takes all rows and a share of the
    // micro-panels of B. s8 / u8 C keeps the rows split even under many panels
    // of B (many_panels_of_b): its rows are seldom whole cache lines, so
    // threads splitting the columns wrote parts of one line in every row, and
    // ResNet-50's int8 NCHW 1x1 forward into u8 at batch 1 ran slower on 2
    // threads than on 1 (Intel Xeon model 167, 2 threads: res3a_1x1b 2.90x,
    // res2a_1x1b 1.40x by rows).
    const int64_t micro_rows = ceil_div(g_.m, mr_);
    const bool byte_c = dlk_dtype_size(g_.c_type) == 1;
    const bool split_rows = micro_rows >= kMinMicroRowsPerThread * members &&
                            !(Path::row_sums && many_panels_of_b(g_.n, members) && !byte_c);
    const int64_t row_begin = split_rows ? micro_rows * member / members * mr_ : 0;
    const int64_t row_end =
        split_rows ? std::min(g_.m, micro_rows * (member + 1) / members * mr_) : g_.m;
    const int64_t rows = row_end - row_begin;
    // Blocks of equal size within the share, MC at most.
    const int64_t mc_share = rows > 0 ? round_up(ceil_div(rows, ceil_div(rows, mc_)), mr_) : mr_;
    for (int64_t j0 = 0; j0 < g_.n; j0 += nc_) {
      const int64_t nc = std::min(nc_, g_.n - j0);
      const int64_t panels = ceil_div(nc, nr_);
      const int64_t q0 = split_rows ? 0 : panels * member / members;
      const int64_t q1 = split_rows ? panels : panels * (member + 1) / members;
      for (int64_t kb = 0; kb < k_blocks_; ++kb) {
        const int64_t p0 = kb * kc_, kc = std::min(kc_, g_.k - p0);
        // Panels are laid out with k padded to the kernel's groups.
        const int64_t kcp = round_up(kc, Path::k_group);
        const bool first = kb == 0, last = kb == k_blocks_ - 1;
        // k == 0 packs nothing and forms no address in A or B: validation lets
        // their strides be anything then (found by fuzz_gemm: offsets overflowed).
        const bool packs = kc > 0;
        // The shared B block: each thread packs a share of its micro-panels.
        const int64_t qa = panels * member / members, qb = panels * (member + 1) / members;
        if (packs && qa < qb && !b_in_place_)
          b_packer_.pack_panels(batch, p0, kc, j0 + qa * nr_, std::min(nc, qb * nr_) - qa * nr_,
                                PackedPanel{b_pack + qa * kcp * nr_, Path::packed_b, nr_}, qb - qa);
        if constexpr (Path::col_sums)
          if (sums_needed_)
            for (int64_t q = qa; q < qb; ++q)
              pack_kernels_.column_sums(b_pack + q * kcp * nr_, kcp / 4, nr_, sums + q * nr_);
        if (!b_in_place_) sync(members);
        // The last panel's tail columns, where the kernel sums them along k.
        const int64_t last_cols = nc - (panels - 1) * nr_;
        const int tail_count = static_cast<int>(last_cols % 16);
        const float *tail = nullptr;
        const int64_t tail_ld = round_up(kcp / Path::k_group, 16);
        if (sums_tails_ && packs && q1 == panels && tail_count >= 1 &&
            tail_count <= kernels::kMaxTailColumns) {
          float *own = tails_ + tail_size_ * thread;
          copy_tail_columns(b_pack + (panels - 1) * kcp * nr_, nr_, last_cols - tail_count,
                            tail_count, kcp / Path::k_group, tail_ld, own);
          tail = own;
        }
        for (int64_t i0 = row_begin; i0 < row_end && q0 < q1; i0 += mc_share) {
          const int64_t mc = std::min(mc_share, row_end - i0);
          if (packs && a_packer_)
            a_packer_->pack(batch, i0, mc, p0, kc, PackedPanel{a_pack, Path::packed_a, mr_});
          else if (packs && !a_in_place_ && !a_columns_in_place_)
            Path::pack_a(pack_kernels_, a_block(g_, batch, i0, p0), mc, kc, mr_, a_pack);
          if constexpr (Path::row_sums)
            if (sums_needed_) Path::sum_rows(pack_kernels_, a_pack, mc, kcp, mr_, sums);
          for (int64_t q = q0; q < q1; ++q) {
            const int64_t jr = q * nr_, cols = std::min<int64_t>(nr_, nc - jr);
            for (int64_t ir = 0; ir < mc; ir += mr_) {
              Acc *tile_c = in_place_ ? c + (i0 + ir) * g_.rs_c + j0 + jr
                                      : workspace + (i0 + ir) * ws_ld_ + jr;
              const int64_t ldc = in_place_ ? g_.rs_c : ws_ld_;
              const TileSpot spot{batch, i0 + ir, j0 + jr, std::min<int64_t>(mr_, mc - ir),
                                  cols};
              auto tile = Path::tile(g_, whole_rule_, first, last, spot, tile_c, ldc,
                                     sums + q * nr_, sums + ir);
              const PackedA *a = a_pack + ir * kcp;
              if constexpr (a_by_rows<Path>) tile.a_rs = kcp;
              if (a_in_place_) {
                a = static_cast<const PackedA *>(g_.a.ptr) + batch * g_.a.batch_stride +
                    (i0 + ir) * g_.a.rs + p0;
                tile.a_rs = g_.a.rs;
              }
              if constexpr (Path::packed_a == PackedType::f32) {
                if (a_columns_in_place_) {
                  a = static_cast<const PackedA *>(g_.a.ptr) + batch * g_.a.batch_stride +
                      i0 + ir + p0 * g_.a.cs;
                  tile.a_cs = g_.a.cs;
                }
              }
              const PackedB *b = b_pack + q * kcp * nr_;
              if (tail && q == panels - 1) {
                tile.b_tail = reinterpret_cast<decltype(tile.b_tail)>(tail);
                tile.b_tail_ld = tail_ld;
              }
              if constexpr (std::is_same_v<decltype(tile), kernels::F32Tile>) {
                if (b_in_place_) {
                  b = static_cast<const PackedB *>(g_.b.ptr) + batch * g_.b.batch_stride +
                      p0 * g_.b.rs + j0 + jr;
                  tile.b_rs = g_.b.rs;
                  tile.b_far = b_far_;
                }
              }
              kernels::S32Requantize requantize;
              if constexpr (std::is_same_v<decltype(tile), kernels::S32Tile>) {
                if (stores_in_tile_ && last) {
                  requantize = requantize_spot(g_, spot);
                  tile.requantize = &requantize;
                }
              }
              if constexpr (std::is_same_v<decltype(tile), kernels::F32Tile>) {
                if (stores_in_tile_ && last) {
                  tile.bf16 = static_cast<uint16_t *>(g_.c) + batch * g_.batch_stride_c +
                              (i0 + ir) * g_.rs_c + j0 + jr;
                  tile.bf16_ld = g_.rs_c;
                }
              }
              kernel_.run(kcp, a, b, tile);
            }
          }
          if (!in_place_ && !stores_in_tile_ && last) {
            const int64_t cols = std::min(nc, q1 * nr_) - q0 * nr_;
            Path::store(set_, g_, TileSpot{batch, i0, j0 + q0 * nr_, mc, cols},
                        workspace + i0 * ws_ld_ + q0 * nr_, ws_ld_);
          }
        }
        if (!b_in_place_) sync(members);  // the B block is overwritten next
      }
    }
  }

 private:
  // Whether the s8 A path's threads split B's micro-panels rather than the
  // rows: with the output channels as rows and many panels of pixels, split
  // by rows each thread read all of a B block, half of it packed by the
  // other core (res3a_1x1a: 800 KB); split by panels each reads only what it
  // packed. ResNet-50's int8 NCHW 1x1 forward at batch 1 on 2 threads, 16
  // panels or more a thread: res3a_1x1a 1.47x, res3b_1x1a 1.33x, res2a_1x1b
  // 1.42x, res4a_1x1a 1.13x (AMD EPYC Zen 5; docs/conv_pool_speed.md).
  bool many_panels_of_b(int64_t n, int members) const {
    return ceil_div(n, nr_) >= 2 * kMinMicroRowsPerThread * members;
  }

  static void sync(int members) {
    if (members > 1) {
#pragma omp barrier
    }
  }

  const core::GemmArgs &g_;
  const GemmKernel<typename Path::Microkernel> &kernel_;
  const kernels::GemmPackKernels &pack_kernels_;
  const GemmKernelSet &set_;
  const StridedBPanelPacker strided_;
  const BPanelPacker &b_packer_;
  const APanelPacker *a_packer_;
  const bool in_place_;
  // The last k block's micro-kernel stores into C: rounds into bf16 or
  // requantizes into bytes (Path::stores_in_tile).
  const bool stores_in_tile_;
  const bool whole_rule_;  // the micro-kernel's store applies C's whole rule
  bool a_in_place_ = false, a_columns_in_place_ = false, b_in_place_ = false;
  int64_t b_far_ = 0;  // F32Tile::b_far
  int mr_ = 0, nr_ = 0;
  int64_t mc_ = 0, kc_ = 0, nc_ = 0, k_blocks_ = 0, ws_ld_ = 0;
  int64_t a_size_ = 0, b_size_ = 0, sums_size_ = 0, ws_size_ = 0;
  PackedB *b_packs_ = nullptr;
  PackedA *a_packs_ = nullptr;
  int32_t *sums_ = nullptr;  // B's column sums or A's row sums (Path::col_sums, row_sums)
  bool sums_needed_ = false;  // the kernel reads them only where a_zero / b_zero != 0
  bool sums_tails_ = false;  // the last panel's tail columns go to the kernel as b_tail
  int64_t tail_size_ = 0;    // 32-bit elements a thread
  float *tails_ = nullptr;   // per thread (int8's k-quads too, as their bits)
  Acc *workspaces_ = nullptr;
};

// Batch entries go to threads whole when there are enough of them and each is
// small (or they divide evenly): no barriers, no shared blocks. Otherwise all
// threads work on one entry after another, sharing its packed B blocks.
bool threads_over_batch(const core::GemmArgs &g, int threads) {
  const int64_t macs = g.m * g.n * std::max<int64_t>(g.k, 1);
  return threads > 1 && g.batch >= threads && (g.batch % threads == 0 || macs < (int64_t{1} << 22));
}

template <class Path>
const char *run_blocked(const core::GemmArgs &g, const GemmKernelSet &set, int threads,
                        const BPanelPacker *b_packer, const APanelPacker *a_packer) {
  const int64_t macs = g.m * g.n * std::max<int64_t>(g.k, 1) * g.batch;
  // team_size also gives 1 inside the caller's OpenMP region and in a fork() child.
  threads = team_size(std::max<int64_t>(1, macs / kGemmMinMacsPerThread), threads);
  if (threads_over_batch(g, threads)) {
    const int team = team_size(g.batch, threads);
    BlockedGemm<Path> gemm(g, set, b_packer, a_packer, team, team);
    parallel_for(g.batch, team, [&](int64_t batch, int thread) {
      gemm.run_entry(batch, thread, 0, 1, thread);
    });
    return gemm.kernel_name();
  }
  BlockedGemm<Path> gemm(g, set, b_packer, a_packer, 1, threads);
  if (threads == 1) {
    // No OpenMP region at all: even an inactive one (if (false)) cost a small
    // GEMM futex calls into the kernel, a tenth of a 64^3 int8 call.
    for (int64_t batch = 0; batch < g.batch; ++batch) gemm.run_entry(batch, 0, 0, 1, 0);
    return gemm.kernel_name();
  }
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num(), members = omp_get_num_threads();
    for (int64_t batch = 0; batch < g.batch; ++batch)
      gemm.run_entry(batch, 0, thread, members, thread);
  }
  return gemm.kernel_name();
}

// f(Path{}) for the blocked loops' path of g: int8 (u8 A x s8 B, or s8 A x u8
// B, which only a tier with that kernel is given) and bf16 x bf16 on AMX where
// the CPU has it and A is not a caller's packer's, or its packer writes rows;
// else int8 on the tier's kernels, bf16
// where the tier has a bf16 kernel, else f32.
template <class F>
auto with_path(const core::GemmArgs &g, const GemmKernelSet &set, const APanelPacker *a_packer,
               const F &f) {
  const bool a_rows = !a_packer || a_packer->writes_rows();
  if (g.is_integer() && g.s8_a)
    return set.s8u8_amx.run && a_rows ? f(AmxIntegerS8APath{}) : f(IntegerS8APath{});
  if (g.is_integer()) return set.s32_amx.run && a_rows ? f(AmxIntegerPath{}) : f(IntegerPath{});
  const bool bf16 = g.a.dtype == DLK_DTYPE_BF16 && g.b.dtype == DLK_DTYPE_BF16;
  if (bf16 && set.bf16_amx.run && a_rows) return f(AmxBf16Path{});
  if (bf16 && set.bf16_pairs.run) return f(Bf16Path{});
  return f(FloatPath{});
}

}  // namespace

core::GemmArgs transposed(const core::GemmArgs &g) {
  core::GemmArgs t = g;
  t.m = g.n, t.n = g.m;
  t.a = {g.b.ptr, g.b.dtype, g.b.cs, g.b.rs, g.b.batch_stride};
  t.b = {g.a.ptr, g.a.dtype, g.a.cs, g.a.rs, g.a.batch_stride};
  t.rs_c = g.cs_c, t.cs_c = g.rs_c;
  t.bias_per_row = !g.bias_per_row;
  if (g.is_integer()) {
    // The s8 operand changes sides, and the zero point with the other.
    t.s8_a = !g.s8_a;
    t.a_zero_point = g.b_zero_point, t.b_zero_point = g.a_zero_point;
  }
  return t;
}

const char *gemm_strided(const core::GemmArgs &args, core::CpuIsa isa, int threads,
                         const BPanelPacker *b_packer, core::CpuGemmPath path,
                         const APanelPacker *a_packer) {
  core::GemmArgs g = args;
  const bool packers = b_packer || a_packer;
  // C with column stride 1 is where the micro-kernels store fastest.
  if (!g.is_integer() && !packers && g.cs_c != 1 && g.rs_c == 1 &&
      !gemm_keeps_column_major_c(g, isa))
    g = transposed(g);
  if (g.k == 0) {
    // C = beta * C as in BLAS. The accumulator is zero; a zero multiplier keeps
    // an infinite alpha or scale from turning that zero into NaN.
    g.alpha = 0.0f;
    g.multiplier = 0.0f;
    g.column_multipliers = nullptr;
  }
  if (!packers) {
    if (const std::optional<UnpackedPlan> plan = plan_unpacked(g, path))
      return gemm_unpacked(g, *plan, isa, threads);
    if (const char *gemv = gemm_gemv(g, isa, threads, path)) return gemv;
  }
  const GemmKernelSet &set = gemm_kernel_set(isa);
  return with_path(g, set, a_packer, [&](auto blocked) {
    return run_blocked<decltype(blocked)>(g, set, threads, b_packer, a_packer);
  });
}

// Whether a float GEMM keeps its column-major C rather than run as C^T = B^T
// A^T: where A is read in place and C has so few columns against k that the
// turned product would pack B^T (k x m) for few micro-rows, storing C down its
// columns from the workspace costs less (k >= 8 n). An NHWC convolution's
// weights at batch 1: ResNet-50's res5 1x1 forward (49 pixels over 512 and
// 2048 taps) 1.17-1.30x on 1 thread, res5a_1x1b 1.21x on 2; packing the
// weights had been 40 % of res5a_1x1b's time. Its 196-pixel layers over 1024
// taps (k = 5.2 n) came out level to 0.9x of oneDNN's ratio: turned (Intel
// Xeon model 167). And where B's rows, a multiple of 4 KiB apart, are read in
// place (under at most kMaxRowsForAliasedB rows of C, 8 panels of the turned
// product): turned, B^T would be packed (its columns so far apart are not read
// in place) for those few panels. An NCHW
// 1x1 backward data at batch 1 over 1024 or 2048 channels (the weights B):
// ResNet-50's res5b_1x1a 1.24x, res5a_proj 1.16x, res4b_1x1a 1.18x against its
// col2im route (Intel Xeon model 167, 1 thread; conv2d_backward_data.cpp).
bool gemm_keeps_column_major_c(const core::GemmArgs &g, core::CpuIsa isa) {
  if (8 * g.n <= g.k && gemm_reads_a_in_place(g, isa)) return true;
  const GemmKernelSet &set = gemm_kernel_set(isa);
  return with_path(g, set, nullptr, [&](auto blocked) {
    using Path = decltype(blocked);
    const GemmKernel<typename Path::Microkernel> &kernel = Path::kernel(set);
    return Path::packed_b == PackedType::f32 &&
           rows_4k_apart(g.b.rs, int64_t{sizeof(typename Path::PackedB)}) &&
           reads_b_in_place<Path>(g, kernel, k_block(g.k, kernel.blocking.kc, Path::k_group));
  });
}

bool gemm_runs_bf16_on_amx(core::CpuIsa isa) { return gemm_kernel_set(isa).bf16_amx.run; }
bool gemm_runs_int8_on_amx(core::CpuIsa isa) { return gemm_kernel_set(isa).s32_amx.run; }

bool gemm_reads_a_in_place(const core::GemmArgs &args, core::CpuIsa isa) {
  const GemmKernelSet &set = gemm_kernel_set(isa);
  return with_path(args, set, nullptr, [&](auto blocked) {
    using Path = decltype(blocked);
    return reads_a_in_place<Path>(args, Path::kernel(set));
  });
}

core::GemmArgs single_gemm(int64_t m, int64_t n, int64_t k, const core::MatrixView &a,
                           const core::MatrixView &b, void *c, dlk_dtype c_type, int64_t rs_c,
                           int64_t cs_c) {
  core::GemmArgs g;
  g.m = m, g.n = n, g.k = k, g.batch = 1;
  g.a = a, g.b = b;
  g.c = c, g.c_type = c_type, g.rs_c = rs_c, g.cs_c = cs_c;
  return g;
}

}  // namespace dlk::cpu
