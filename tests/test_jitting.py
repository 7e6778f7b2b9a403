"""repro.core.jitting: every jitted function of the core is compiled with the deterministic options."""

import ast
import pathlib

import jax.numpy as jnp
import pytest

from repro.core import jitting

REPRO = pathlib.Path(__file__).resolve().parents[1] / "repro"


def test_no_module_of_the_core_calls_jax_jit_itself():
    offenders = []
    for path in sorted(REPRO.rglob("*.py")):
        if path.name == "jitting.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "jit" and getattr(node.value, "id", None) == "jax":
                offenders.append(f"{path.relative_to(REPRO.parent)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "jax" and any(a.name == "jit" for a in node.names):
                offenders.append(f"{path.relative_to(REPRO.parent)}:{node.lineno}")
    assert not offenders, f"use repro.core.jitting.jit: {offenders}"


def test_the_options_reach_the_compiler(monkeypatch):
    f = jitting.jit(lambda x: x @ x)
    assert float(f(jnp.eye(2))[0, 0]) == 1.0  # the real options compile on this backend
    monkeypatch.setattr(jitting, "DETERMINISTIC", {**jitting.DETERMINISTIC, "xla_no_such_option": True})
    g = jitting.jit(lambda x: x + 1, static_argnames=())
    with pytest.raises(Exception, match="xla_no_such_option"):
        g(jnp.ones(2))
    h = jitting.jit(static_argnums=1)(lambda x, k: x * k)  # the decorator-with-arguments form
    with pytest.raises(Exception, match="xla_no_such_option"):
        h(jnp.ones(2), 3)
