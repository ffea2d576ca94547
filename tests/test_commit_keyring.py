"""The commit gate's keys: fresh per run, in a 0600 keyring, never derived from the seed."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol_runner.commit import Keyring, KeyringError, canonical_json, public_key_hex
from protocol_runner.commit.ledger import read_entries
from protocol_runner.run.records import read_records
from robustgraph.cli import main

RUN = ["run", "--topology", "merg", "--n", "5", "--roster", "4S1A", "--F", "1",
       "--protocols", "sac", "--tasks", "arith:3", "--rounds", "1", "--seed", "4",
       "--no-plots", "--commit-gate"]


def _run(*args: str):
    return CliRunner().invoke(main, [*RUN, *args], catch_exceptions=False)


def _registered(ledger) -> dict[str, str]:
    body = read_entries(ledger)[0].body
    return {a["agent_id"]: a["public_key"] for a in body["agents"]} | {
        "gate": body["signers"]["gate"], "reviewer": body["signers"]["reviewer"]}


def test_keyring_file_is_owner_only_and_extended_with_fresh_keys(tmp_path):
    path = tmp_path / "keys.json"
    ring = Keyring.open(path, ["a", "b"])
    assert os.stat(path).st_mode & 0o777 == 0o600
    again = Keyring.open(path, ["a", "b", "c"])
    assert sorted(again.agents) == ["a", "b", "c"] and os.stat(path).st_mode & 0o777 == 0o600
    same = lambda x, y: public_key_hex(x.public_key()) == public_key_hex(y.public_key())  # noqa: E731
    assert same(again.agents["a"], ring.agents["a"]) and same(again.gate, ring.gate)
    keys = {public_key_hex(k.public_key()) for k in [again.gate, again.reviewer,
                                                      *again.agents.values()]}
    assert len(keys) == 5
    assert not list(tmp_path.glob(".*tmp"))  # the atomic rewrite left no temporary file


@pytest.mark.parametrize(("content", "mode", "message"), [
    (None, 0o644, "readable or writable by others (mode 0644); run 'chmod 600"),
    ("not json", 0o600, "not a robustgraph keyring"),
    ('{"format": "robustgraph-keyring/1", "gate": "00", "reviewer": "00", "agents": {}}', 0o600,
     "key 'gate' is not 32 bytes in hex"),
    ('{"format": "other"}', 0o600, "expected format robustgraph-keyring/1"),
])
def test_a_bad_keyring_is_one_line_exit_2_before_the_run_writes(tmp_path, content, mode, message):
    path = tmp_path / "keys.json"
    if content is None:
        Keyring.open(path, ["x"])
    else:
        path.write_text(content)
    path.chmod(mode)
    with pytest.raises(KeyringError, match="keyring|key"):
        Keyring.open(path)
    result = _run("--keyring", str(path), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not (tmp_path / "out").exists()


def test_each_run_has_fresh_keys_and_the_same_numbers(tmp_path):
    for name in ("one", "two"):
        assert _run("-o", str(tmp_path / name)).exit_code == 0
        assert os.stat(tmp_path / name / "keyring.json").st_mode & 0o777 == 0o600
    one, two = (_registered(tmp_path / n / "ledger.sqlite") for n in ("one", "two"))
    assert one.keys() == two.keys() and not set(one.values()) & set(two.values())
    records = [[r.protocol_data["commit_gate"]["gate"] for r in read_records(
        tmp_path / n / "results.jsonl")] for n in ("one", "two")]
    assert records[0] == records[1]  # keys change no result


def test_no_registered_key_is_derived_from_the_run_seed(tmp_path):
    assert _run("-o", str(tmp_path / "out")).exit_code == 0
    seed = json.loads((tmp_path / "out" / "config.json").read_text())["run"]["seed"]
    registered = _registered(tmp_path / "out" / "ledger.sqlite")
    for agent, key in registered.items():
        derived = Ed25519PrivateKey.from_private_bytes(
            hashlib.sha256(canonical_json(["keyring", int(seed), agent])).digest())
        assert public_key_hex(derived.public_key()) != key


def test_a_given_keyring_keeps_a_deployment_s_identities_across_runs(tmp_path):
    keys = tmp_path / "deploy" / "keys.json"
    keys.parent.mkdir()
    for name in ("monday", "tuesday"):
        assert _run("--keyring", str(keys), "-o", str(tmp_path / name)).exit_code == 0
        assert not (tmp_path / name / "keyring.json").exists()
    assert _registered(tmp_path / "monday" / "ledger.sqlite") == \
        _registered(tmp_path / "tuesday" / "ledger.sqlite")


def test_keyring_goes_with_the_commit_gate(tmp_path):
    args = [a for a in RUN if a != "--commit-gate"]
    result = CliRunner().invoke(main, [*args, "--keyring", str(tmp_path / "k.json"), "-o",
                                       str(tmp_path / "out")])
    assert result.exit_code == 2 and "--keyring goes with --commit-gate" in result.output
