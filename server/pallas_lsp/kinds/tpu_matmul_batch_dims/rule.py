"""PAL712: a dot with more than one batch dimension in a kernel compiled by Mosaic TPU (jax 0.10)."""
from __future__ import annotations

from ...analysis.rule_api import Hit, Report
from ...rules.tpu_matmul_rule import DOT_KEYS, TpuKernelOpRule, release_key

# Shown on a TPU v5e and by lowering for TPU on the CPU with jax 0.10.2; 0.11.2 and 0.12.0.1 lower
# the same programs. The releases before 0.10 were not run: nothing is claimed for them.
_RAISED_IN = ((0, 10), (0, 11))


class TpuMatmulBatchDims(TpuKernelOpRule):
    """Mosaic TPU's matmul takes at most one batch dimension (jax 0.10).

    The TPU lowering turns a `dot_general` into `tpu.matmul`, and Pallas verifies the Mosaic
    module right after lowering; in jax 0.10.2 the verifier accepts one batch dimension at most,
    so a dot with two (`jnp.einsum("ghij,ghjk->ghik", ...)`, `lax.dot_general` with batch dims
    `(0, 1)`, `jnp.matmul` of 4-D blocks) fails with a `VerificationError`. jax 0.11.2 and
    0.12.0.1 lower them. Interpret mode computes them. Fold the batch dimensions into one with
    reshapes (`a.reshape(G * H, M, K)`), or move one into the grid.
    """

    code = "PAL712"
    name = "tpu-matmul-batch-dims"
    record = "tpu-matmul-batch-dims"
    summary = "a dot with two or more batch dimensions in a kernel compiled for TPU (jax 0.10)"
    apis = DOT_KEYS
    label = "jnp.einsum"

    def check(self, hit: Hit) -> Report | None:
        if not _RAISED_IN[0] <= release_key(hit)[:2] < _RAISED_IN[1]:
            return None
        facts = self.dot(hit)
        if facts is None or facts.batch_dims is None or facts.batch_dims < 2:
            return None
        if facts.operand_dtype is not None and facts.operand_dtype.startswith("uint"):
            return None  # (the unsigned check comes first: PAL713)
        return Report("VerificationError: Pallas encountered an internal verification error. ... Error details: "
                      "'tpu.matmul' op Not implemented: Up to 1 batch dim supported",
                      f"{self.call_words(hit)} has {facts.batch_dims} batch dimensions, and jax "
                      f"{hit.release.version}'s Mosaic TPU matmul takes one at most", fixable=False)
