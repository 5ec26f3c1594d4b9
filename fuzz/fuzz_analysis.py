"""Coverage-guided fuzzing of the analysis entry point with atheris.

    python fuzz/fuzz_analysis.py -max_total_time=300 /tmp/pallas-fuzz tests/data/corpus

libFuzzer writes new inputs into the first folder; the corpus programs seed it. Any exception
out of the analysis is a crash (saved by libFuzzer as crash-*); turn each into a regression
test in tests/robustness/test_fuzz.py. tests/robustness/test_fuzz.py also runs this target in a
short, bounded mode in CI.

The hostile shapes of hostile_shapes.py (deep nesting in every form) are written into the
first folder as seeds, and inputs starting with ``hostile_shapes.NESTED_MAGIC`` are read as a
nesting shape of a fuzzed kind and depth (see ``nested_input``).
"""
import sys
from pathlib import Path

import atheris

from hostile_shapes import nested_input, write_seeds

with atheris.instrument_imports(include=["pallas_lsp"]):
    from pallas_lsp.rules import analyse
    from pallas_lsp.analysis.edits import apply_edits


def one_input(data: bytes) -> None:
    text = nested_input(data)
    if text is None:
        fdp = atheris.FuzzedDataProvider(data)
        text = fdp.ConsumeUnicodeNoSurrogates(len(data))
    result = analyse(text, "fuzz.py")
    for f in result.findings:  # every fix must apply to the text it was computed for
        for fix in f.fixes:
            apply_edits(text, fix.edits)
    for launch in result.launches:
        launch.kernel_name  # noqa: B018 - touch what hovers and lenses read


def main() -> None:
    folders = [a for a in sys.argv[1:] if not a.startswith("-")]
    if folders:
        write_seeds(Path(folders[0]))
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
