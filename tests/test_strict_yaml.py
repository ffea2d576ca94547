"""A key given twice in a user's YAML (sweep spec, roster file) is an error, not a silent
overwrite."""

from __future__ import annotations

import pytest
import yaml

from protocol_runner.run import strict_yaml
from protocol_runner.run.roster import build_roster
from protocol_runner.sweep.spec import SpecError, load_spec
from robustgraph.errors import ParameterError
from robustgraph.generators import gamma_merg


def test_a_repeated_key_is_refused_with_its_line():
    with pytest.raises(yaml.YAMLError) as info:
        strict_yaml.load("grid:\n  n: [5]\n  seed: [1]\n  n: [7]\n")
    assert "found the key 'n' twice" in str(info.value)
    assert info.value.problem_mark.line + 1 == 4


def test_equal_keys_in_different_mappings_are_fine():
    data = strict_yaml.load("a: {x: 1}\nb: {x: 2}\nagents:\n  - {node: 0}\n  - {node: 1}\n")
    assert data == yaml.safe_load("a: {x: 1}\nb: {x: 2}\nagents:\n  - {node: 0}\n  - {node: 1}\n")


def test_sweep_spec_with_a_repeated_axis(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("grid:\n  topology: [merg]\n  n: [5]\n  roster: ['3S1W1A']\n"
                    "  tasks: ['arith:5']\n  seed: [1]\n  seed: [2]\nprotocols: [sac]\n")
    with pytest.raises(SpecError, match=r"line 7: .*found the key 'seed' twice"):
        load_spec(path)


def test_roster_file_with_a_repeated_field(tmp_path):
    path = tmp_path / "roster.yaml"
    path.write_text("agents:\n  - {node: '0', role: strong, role: adversary}\n")
    with pytest.raises(ParameterError, match="found the key 'role' twice"):
        build_roster(gamma_merg(5), str(path))
