import jax

from pkg.cpu_only import build_signal


def test_signal_on_any_host():
    build_signal((8,), "float32", interpret=jax.default_backend() == "cpu")
