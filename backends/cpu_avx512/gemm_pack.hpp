// Packing of GEMM operands into the micro-panels the micro-kernels read
// (kernels/gemm_microkernel.hpp): any supported dtype and any element strides in,
// the micro-kernel's operand type out. Packing is where dtypes and layouts end, so
// one micro-kernel serves every layout, transpose and input type.
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/kernels/gemm_pack_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// A block of an operand seen as `count` panel rows ("outer": the m rows of A or
// the n columns of B) of `kc` elements each ("inner": along k). Element (o, p)
// is at ptr + o * outer_stride + p * inner_stride, in elements of dtype.
struct PanelSource {
  const void *ptr = nullptr;
  dlk_dtype dtype = DLK_DTYPE_F32;
  int64_t outer_stride = 0;
  int64_t inner_stride = 0;
};

// The block of A rows [i0, i0 + mc) x k [p0, p0 + kc) of batch entry `batch`.
PanelSource a_block(const core::GemmArgs &g, int64_t batch, int64_t i0, int64_t p0);
// The block of B k [p0, p0 + kc) x columns [j0, j0 + nc) of batch entry `batch`.
PanelSource b_block(const core::GemmArgs &g, int64_t batch, int64_t p0, int64_t j0);

// The packers below run the tier's packing kernels (`kernels`) where a stride
// is 1 and an element loop otherwise.
//
// Packs ceil(count / width) micro-panels of kc x width, each stored p-major
// (out[p * width + t]), one after another; rows past count are zero.
// f32, f16 or bf16 in.
void pack_f32_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                     int64_t count, int64_t kc, int width, float *out);
// The int8 layout (k-quads, kernels/gemm_microkernel.hpp): ceil(count / width)
// micro-panels of round_up(kc, 4) x width, element (p, t) of a panel at
// out[(p / 4) * width * 4 + t * 4 + p % 4], zeros past kc and count.
// The u8 operand (A, or B with GemmArgs::s8_a): u8 as it is, s8 shifted by
// 128 to u8 (the caller shifts the zero point).
void pack_u8_quad_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                         int64_t count, int64_t kc, int width, uint8_t *out);
// The s8 operand (B, or A with GemmArgs::s8_a).
void pack_s8_quad_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                         int64_t count, int64_t kc, int width, int8_t *out);
// The bf16 layout (k-pairs): as the k-quads with groups of two, bf16 bits as
// they are.
void pack_bf16_pair_panels(const kernels::GemmPackKernels &kernels, const PanelSource &src,
                           int64_t count, int64_t kc, int width, uint16_t *out);
// The AMX layouts of A (bf16_rows, u8_rows, s8_rows): the block's rows one
// after another, row t's k p at out[t * round_up(kc, group) + p] (group 2 for
// bf16, 4 for int8), zeros past kc; the kernels read it as they read A in
// place. `flip` as in the k-quads (0x80: s8 in, u8 out).
void pack_bf16_rows(const PanelSource &src, int64_t count, int64_t kc, uint16_t *out);
void pack_int8_rows(const PanelSource &src, int64_t count, int64_t kc, uint8_t flip,
                    uint8_t *out);
// k rounded up to the int8 layout's groups of four.
inline int64_t quad_padded(int64_t kc) { return (kc + 3) / 4 * 4; }

// One packed B micro-panel as a micro-kernel reads it: `width` (the kernel's NR)
// columns. Element (p, t) of the panel (k index p from the block's first row,
// column t) is at
//   f32 (f32, f16 and bf16 GEMM):  static_cast<float *>(data)[p * width + t]
//   bf16_pairs (bf16 GEMM on AVX512_BF16):
//                                  static_cast<uint16_t *>(data)[(p / 2) * width * 2 + t * 2 + p % 2]
//   bf16_rows, u8_rows, s8_rows (A on AMX): pack_bf16_rows's, pack_int8_rows's
//   s8_quads (int8 GEMM):          static_cast<int8_t *>(data)[(p / 4) * width * 4 + t * 4 + p % 4]
// with k padded to a multiple of 2 or 4. Columns past the matrix's
// edge and k past the block's end must be zero. (The int8 compensation sums of
// B's columns are the framework's business: it computes them from the panel.)
// An A micro-panel (APanelPacker) is the same with rows for columns; the int8
// GEMM's A is u8_quads, laid out as s8_quads, u8 values (s8 A shifted by 128),
// and with GemmArgs::s8_a the roles turn: A s8_quads, B u8_quads.
enum class PackedType { f32, bf16_pairs, bf16_rows, s8_quads, u8_quads, u8_rows, s8_rows };
struct PackedPanel {
  void *data;
  PackedType type;
  int width;
};

// The B operand as the blocked GEMM sees it: a packer that the framework calls
// once per micro-panel of each KC x NC block of B. This is the seam where ops
// that lower to GEMM feed it without materialising their B matrix: convolution
// writes im2col columns straight into the packed panels. Calls for different
// panels run concurrently on the threads of the GEMM (each thread packs some of
// the shared block), so pack() must be safe to call from several threads and
// must not throw.
class BPanelPacker {
 public:
  virtual ~BPanelPacker() = default;
  // Writes B rows [p0, p0 + kc) x columns [j0, j0 + cols) of batch entry `batch`
  // into `panel`, cols <= panel.width, zeros in columns cols .. width - 1.
  virtual void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                    const PackedPanel &panel) const = 0;
  // Writes `count` consecutive micro-panels, columns [j0, j0 + cols), cols <=
  // count * width, into panels laid one after another from `first`. By
  // default one pack() per panel; a packer whose source runs along the columns
  // may read each row once for all of them.
  virtual void pack_panels(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                           const PackedPanel &first, int64_t count) const;
};

// The A operand from a packer of its own, as BPanelPacker for B: the blocked
// GEMM calls it for each MC x KC block of A a thread packs (the thread's own
// rows, so calls run concurrently, for different rows); it must not throw.
// Convolution's int8 forward writes im2col^T (a row per output pixel) this way.
class APanelPacker {
 public:
  virtual ~APanelPacker() = default;
  // Writes A rows [i0, i0 + rows) x k [p0, p0 + kc) of batch entry `batch` as
  // ceil(rows / first.width) micro-panels of first.type laid one after another
  // from first.data, zeros in the rows past `rows` and the k past kc.
  virtual void pack(int64_t batch, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
                    const PackedPanel &first) const = 0;
  // Whether pack() also writes the AMX kernels' rows layout of its dtype
  // (u8_rows, bf16_rows; the k-group layouts every packer writes), so that the
  // GEMM may run on AMX with it.
  virtual bool writes_rows() const { return false; }
};

// The packer of an ordinary strided B (args.b), converting to the panel's type.
class StridedBPanelPacker final : public BPanelPacker {
 public:
  StridedBPanelPacker(const core::GemmArgs &args, const kernels::GemmPackKernels &kernels)
      : args_(args), kernels_(kernels) {}
  void pack(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
            const PackedPanel &panel) const override;
  // Row-major B in the panels' own type: one sweep along each row.
  void pack_panels(int64_t batch, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                   const PackedPanel &first, int64_t count) const override;

 private:
  const core::GemmArgs &args_;
  const kernels::GemmPackKernels &kernels_;
};

}  // namespace dlk::cpu
