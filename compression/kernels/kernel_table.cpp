#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {
namespace {

#define DLK_CODEC_TIER_TABLE(tier)                                                       \
  KernelTable{#tier,                 tier::onebit_encode, tier::onebit_decode,           \
              tier::quantize_encode, tier::quantize_decode, tier::cast_encode,           \
              tier::cast_decode,     tier::topk_select}

const KernelTable kTables[] = {DLK_CODEC_TIER_TABLE(scalar), DLK_CODEC_TIER_TABLE(avx2),
                               DLK_CODEC_TIER_TABLE(avx512)};

#undef DLK_CODEC_TIER_TABLE

}  // namespace

const KernelTable &kernel_table(Isa isa) { return kTables[static_cast<int>(isa)]; }

}  // namespace dlk::codec
