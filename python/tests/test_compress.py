"""dlk.compress: every codec round-trips within its bound, error feedback keeps what the
message lost, decode_add accumulates, and a corrupt message is refused."""
import numpy as np
import pytest
import torch

import dlk
import dlk.compress as dc

BOUND = {"fp16": 1e-3, "bf16": 8e-3, "int8": 1.0 / 127, "int4": 1.0 / 7}


@pytest.mark.parametrize("algorithm", ["onebit", "topk", "int8", "int4", "fp16", "bf16"])
def test_round_trip_with_residual(algorithm):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(np.float32)
    residual = np.zeros_like(x)
    codec = dc.Codec(algorithm)
    msg = codec.encode(x, residual=residual)
    info = dc.inspect(msg)
    assert info["algorithm"] == algorithm and info["element_count"] == x.size
    assert info["message_size"] == msg.size <= codec.max_message_size(x.size)
    y = dc.decode(msg)
    # error feedback: residual = v - decode(encode(v)), to float32 rounding
    assert np.allclose(y + residual, x, atol=1e-6)
    if algorithm in BOUND:
        assert np.abs(y - x).max() <= BOUND[algorithm] * np.abs(x).max() * 1.01
    acc = torch.ones(x.size)
    dc.decode_add(msg, acc)
    assert np.allclose(acc.numpy(), y + 1, atol=1e-6)


def test_corrupt_and_bad_arguments():
    msg = dc.encode(np.ones(100, np.float32), "int8")
    bad = msg.copy()
    bad[0] ^= 0xFF  # the magic number
    with pytest.raises(dlk.Error) as e:
        dc.decode(bad)
    assert e.value.status == "corrupt_message"
    with pytest.raises(dlk.Error):
        dc.decode(msg[:-3])
    with pytest.raises(ValueError, match="unknown algorithm"):
        dc.Codec("zip")
    with pytest.raises(ValueError, match="'residual' has 3 elements"):
        dc.encode(np.ones(4, np.float32), "int8", residual=np.zeros(3, np.float32))
    assert dc.isa() in ("avx512", "avx2", "scalar")
