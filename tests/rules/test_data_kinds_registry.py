"""rules/data.py decides every condition test and applies every fix op the detection schema
registers (records/detection.py), and nothing else: a test or op added to the registry without
its evaluation here fails."""
from pallas_lsp.records.detection import CONDITION_TESTS, FIX_OP_REGISTRY
from pallas_lsp.rules.data import FIX_BUILDERS, TEST_WITNESSES


def test_every_registered_condition_test_is_decided():
    assert set(TEST_WITNESSES) == set(CONDITION_TESTS)


def test_every_registered_fix_op_is_applied():
    assert set(FIX_BUILDERS) == set(FIX_OP_REGISTRY)

