"""PAL706: an 8-bit input block whose rows break the chip's (32, 128) tiling of 8-bit operands."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.launch_specs import first_spec_defect
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import Scope
from ...analysis.tpu_blocks import TpuBlock, first_mapping_defect, tpu_block_mappings, written_block_shape
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu
from ...rules.tpu_dtype_rule import TpuDtypeRule

# The element types the chip was seen to tile (32, 128) (TPU v5e, jax 0.10.2: int8 and uint8
# operands of 64 and 128 rows). float8 is 8-bit too, but no chip run showed it: quiet.
EIGHT_BIT = frozenset({"int8", "uint8"})
# Mosaic's getTilingFactor (mirrored by jax/_src/tpu_info.py _get_tiling_factor) doubles an 8-bit
# operand's row tiling from 4 up to 8 sublanes x 4 packed rows = 32, but no further than the
# operand's rows: an operand with fewer rows tiles smaller, which no chip run measured.
ROW_TILE = 32


def misaligned_rows(block: TpuBlock) -> tuple[int, int] | None:
    """(block rows, array rows) of a windowed 8-bit VMEM block of rank >= 2 whose known
    second-to-last dim is neither a multiple of 32 nor the array's, over an array of at least 32
    rows; None when it is aligned or a fact is unknown."""
    if block.dtype not in EIGHT_BIT or block.memory_space not in ("default", "vmem"):
        return None
    if block.dims is None or block.array is None or len(block.dims) < 2 or len(block.array) != len(block.dims):
        return None
    rows, array_rows = block.dims[-2], block.array[-2]
    if rows.squeezed or rows.size is None or rows.size == array_rows or rows.size % ROW_TILE == 0:
        return None
    if array_rows < ROW_TILE:
        return None
    return rows.size, array_rows


def aligned_rows(rows: int, array_rows: int) -> int:
    """The smallest multiple of 32 at least ``rows`` that divides the array's rows, else the
    array's rows (one block over all of them)."""
    for size in range(ROW_TILE * -(-rows // ROW_TILE), array_rows, ROW_TILE):
        if array_rows % size == 0:
            return size
    return array_rows


class TpuInt8BlockTiling(PythonRule):
    """An int8/uint8 input block whose rows are not a multiple of 32, compiled for TPU.

    The chip stores 8-bit operands in (32, 128) tiles (four rows packed per 32-bit sublane, eight
    sublanes). When Mosaic sets up an input's window, a block whose second-to-last dim is neither
    a multiple of 32 nor the array's own fails with E2002 CompileTimeMosaicMisalignedBlockAndTiling,
    although JAX's (8, 128) check passes and interpret mode runs it (TPU v5e, jax 0.10.2: int8 and
    uint8 blocks of 8 and 16 rows raised, 32 rows compiled). Use a multiple of 32 rows that divides
    the array, or the array's rows.
    """

    code = "PAL706"
    name = "tpu-int8-block-tiling"
    record = "tpu-int8-block-tiling"
    summary = ("an int8/uint8 input block whose second-to-last dim is neither a multiple of 32 nor the array's, "
               "compiled for TPU (the chip tiles 8-bit operands (32, 128))")
    label = "pl.BlockSpec"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode has no tiling)
    launch_apis = frozenset({api.PALLAS_CALL})
    fixable = True

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        found = self._first_misaligned(hit)
        if found is None:
            return None
        block, position, rows, array_rows = found
        ev = hit.ev
        node, scope, _ = block.where
        span = ev.index.span(node, scope)
        related = [Related(ev.index.span(n, s), words) for (n, s, _), words in block.related
                   if ev.index.span(n, s).line != span.line]
        kernel = hit.launch.kernel
        if kernel is not None and kernel.node is not None and kernel.kind == "function":
            related.append(Related(ev.index.span(kernel.node, kernel.parent), "the kernel"))
        array = "(" + ", ".join(map(str, block.array or ())) + ")"
        lead = "..., "  # (the chip writes the leading dims as "...", for 2-D operands too)
        tail = f"{rows}, {block.array[-1] if block.dims[-1].size is None else block.dims[-1].size}"  # type: ignore
        error = ("JaxRuntimeError: INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Failed to set window "
                 f"params for input {position}: E2002: CompileTimeMosaicMisalignedBlockAndTiling: Operand of shape "
                 f"({lead}{array_rows}, {block.array[-1]}) has tiling ({ROW_TILE}, 128), but its block shape "  # type: ignore
                 f"({lead}{tail}) is not divisible by tiling evenly nor matches the full shape")
        article = "an" if block.dtype == "int8" else "a"
        headline = (f"Block {block.block_words()} of {article} {block.dtype} {array} operand ({block.origin}): "
                    f"the chip tiles 8-bit operands ({ROW_TILE}, 128); {rows} rows is not a multiple of {ROW_TILE} "
                    f"nor the array's {array_rows}")
        return Report(error, headline, span=span, key=id(node), related=tuple(related),
                      fixable=self._rows_literal(hit, block) is not None)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        found = self._first_misaligned(hit)
        if found is None:
            return []
        block, _, rows, array_rows = found
        literal = self._rows_literal(hit, block)
        if literal is None:
            return []
        node, scope = literal
        size = aligned_rows(rows, array_rows)
        # (unsafe: the grid and the kernel see other blocks; results stay the same only where
        # they are derived from this one number, as in the program the chip ran clean)
        return [Fix(f"Use {size}-row blocks (a multiple of {ROW_TILE} dividing the array's {array_rows} rows)",
                    (TextEdit(hit.span_of(node, scope), str(size)),), safe=False)]

    def _first_misaligned(self, hit: Hit) -> tuple[TpuBlock, int, int, int] | None:
        """The first misaligned 8-bit input block (its operand position, rows, array rows), where
        nothing fails before the chip sets the window params."""
        ev, launch = hit.ev, hit.launch
        if first_spec_defect(ev, launch) is not None or first_mapping_defect(ev, launch) is not None:
            return None  # (JAX's lowering raises first, with another error)
        blocks = tpu_block_mappings(ev, launch)
        if not blocks:
            return None
        for block in blocks:
            # Only inputs: every chip run that raised named an input; outputs are not measured.
            if block.entry is None or block.entry.role != "in":
                continue
            got = misaligned_rows(block)
            if got is None:
                continue
            if _kernel_fails_first(hit):
                return None
            return block, int(block.origin[len("args["):-1]), *got
        return None

    @staticmethod
    def _rows_literal(hit: Hit, block: TpuBlock) -> tuple[ast.AST, Scope] | None:
        """The int literal the block's row dim is spelled with in this file: in the block
        shape, or the one assignment of the name it reads (``TM = 16``, ``M, N, TM = 128, 256, 16``)."""
        ev = hit.ev
        dims = written_block_shape(ev, block)
        if dims is None or len(dims) < 2 or block.entry is None:
            return None
        call = block.entry.call
        with ev.within(call.frames):
            node: ast.AST = dims[-2]
            scope = call.site.scope
            for _ in range(4):
                if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
                    return (node, scope) if hit.index.path_of(scope) == hit.index.path else None
                if not isinstance(node, ast.Name):
                    return None
                binding = ev.lookup(node.id, scope)
                if binding is None or binding.scope is None or binding.node is None:
                    return None
                if len(binding.scope.bindings.get(node.id, ())) != 1:
                    return None  # (bound more than once: which one the block reads is not one literal)
                if binding.kind == "assign":
                    node, scope = binding.node, binding.scope
                elif binding.kind == "unpack" and isinstance(binding.node, ast.Tuple) \
                        and 0 <= binding.index < len(binding.node.elts):
                    node, scope = binding.node.elts[binding.index], binding.scope
                else:
                    return None
        return None


def _kernel_fails_first(hit: Hit) -> bool:
    """Whether the kernel body surely fails to compile for its element types (PAL700-PAL705):
    the chip compiles the body before it sets the window params, and reports that error instead
    (corpus-tpu block_tiling__int8_sublane_16: a 16-row int8 block whose kernel adds int8
    vectors raised the int8 arithmetic error, not E2002)."""
    for rule_class in _dtype_rules():
        rule = rule_class()
        if rule.applies(hit) and rule.check(hit) is not None:
            return True
    return False


def _dtype_rules() -> list[type[TpuDtypeRule]]:
    from ..tpu_64_bit_types.rule import Tpu64BitTypes
    from ..tpu_float16_vector.rule import TpuFloat16Vector
    from ..tpu_fp8_elementwise.rule import TpuFp8Elementwise
    from ..tpu_narrow_int_vector.rule import TpuNarrowIntVector
    from ..tpu_smem_narrow_int_arith.rule import TpuSmemNarrowIntArith
    from ..tpu_unsupported_shape_cast.rule import TpuUnsupportedShapeCast
    return [TpuNarrowIntVector, TpuSmemNarrowIntArith, TpuFp8Elementwise, TpuFloat16Vector, Tpu64BitTypes,
            TpuUnsupportedShapeCast]
