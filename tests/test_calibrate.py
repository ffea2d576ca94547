"""Calibration of the simulated agents (issue 29): objective, checkpoint, parameter recovery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from protocol_runner.analysis.metrics import compute_metrics
from protocol_runner.analysis.provenance import results_profile
from protocol_runner.run.runner import BackendSpec, RunSpec, run
from protocol_runner.sim import calibrate as calibrate_module
from protocol_runner.sim.agents import SimConfig
from protocol_runner.sim.calibrate import CONFIDENCE_GAP, Calibration, chi2, penalty, run_setting
from protocol_runner.sim.params import ANSWERS, get_values, select_blocks, set_values
from protocol_runner.sim.profiles import HANDSET, default_profile, named_config, resolve_config
from protocol_runner.sim.targets import Setting, Target, paper_targets, targets_from_runs
from robustgraph.cli.main import main
from robustgraph.errors import ParameterError
from robustgraph.generators import complete

TRUTH = {"strong.accuracy": 0.6, "weak.accuracy": 0.3, "weak.trust_when_wrong": 0.05}
"""Known parameters of the unseen pilot run, far from the hand-set start (0.85, 0.45, 0.5)."""
TOLERANCE = {"strong.accuracy": 0.1, "weak.accuracy": 0.1, "weak.trust_when_wrong": 0.25}
"""Recovery tolerances: about 1.5 binomial standard errors of a group's accuracy at 40
questions for the accuracies; the refinement parameter moves the weak curve less sharply."""


def _pilot(tmp_path: Path, config: SimConfig, *, seed: int = 7, tasks: int = 40) -> Path:
    """A simulated stand-in for a user's real-model pilot: 4S2W1A on K7, SAC and CP-WBFT."""
    sim = tmp_path / "truth.json"
    sim.write_text(json.dumps(config.to_mapping()), encoding="utf-8")
    out = tmp_path / "pilot"
    run(RunSpec(complete(7), out, roster="4S2W1A", F=3, protocols=("sac", "cpwbft"),
                tasks=f"arith:{tasks}", rounds=2, seed=seed,
                backend=BackendSpec("simulated", sim_config=str(sim))))
    return out


def test_chi2_weights_binomial_variance_and_spread() -> None:
    near = Target("s", "sac", "weak", (0,), 0.5, 100)
    extreme = Target("s", "sac", "strong", (0,), 0.99, 100)
    # the same 5-point miss weighs less at p = 0.5 (larger binomial variance)
    assert chi2({near.key: 0.55}, [near], 100) < chi2({extreme.key: 0.94}, [extreme], 100)
    # the 2-point run-to-run spread bounds the weight of a target measured on many questions
    big = Target("s", "sac", "weak", (0,), 0.5, 10**9)
    assert chi2({big.key: 0.52}, [big], 10**9, spread=0.02) == pytest.approx(1.0, rel=1e-5)


def test_penalty_forbids_honest_agents_as_sure_when_wrong_and_prior_is_weak() -> None:
    # App. B.4: only the adversary falsifies its confidence; an honest agent is less sure when
    # wrong. The previous fit put strong agents at 1.0 either way (CP-WBFT then barely
    # degraded on Tables 5 and 6); that corner now costs far more than a target's miss.
    sure = {"strong.confidence_right": 1.0, "strong.confidence_wrong": 0.999}
    assert penalty(sure, {}) > 20.0
    assert penalty({**sure, "strong.confidence_wrong": 1.0 - CONFIDENCE_GAP}, {}) == 0.0
    # the prior: one unit at a quarter of the search interval, decisive only where chi2 is flat
    assert penalty({"score_margin": 0.0}, {"score_margin": 0.35}) == pytest.approx(7.84)
    assert penalty({"score_margin": 0.0}, {"score_margin": 0.35}, width=0.0) == 0.0
    # App. B.2 ("retain your current answer if you believe it is correct"): an agent keeps a
    # right answer at least as often as its judge sees one right; fitting CP-WBFT ignores it
    unsure = {"strong.judge_accuracy": 0.96, "strong.trust_when_right": 0.63}
    assert penalty(unsure, {}) > 1000.0
    assert penalty({**unsure, "strong.trust_when_right": 0.96}, {}) == 0.0
    assert penalty(unsure, {}, protocols=("cpwbft",)) == 0.0


def test_parameters_round_trip() -> None:
    changed = set_values(SimConfig(), {"weak.accuracy": 0.2, "refine_sharpness": 3.0}, "bool")
    assert get_values(changed, ["weak.accuracy", "refine_sharpness"], "bool") == {
        "weak.accuracy": 0.2, "refine_sharpness": 3.0}
    assert changed.profiles["weak"].accuracy["math"] == SimConfig().profiles["weak"].accuracy[
        "math"]
    with pytest.raises(ParameterError, match="unknown simulator parameter"):
        select_blocks(["weak.nonsense"])


def test_paper_targets_read_the_shipped_table2() -> None:
    settings, targets, kind = paper_targets("table2", "math")
    assert kind == "math" and [s.name for s in settings] == ["merg", "complete", "er"]
    assert {s.tasks for s in settings} == {"arith:100"} and settings[2].topology == "er:r=4"
    cp = [t for t in targets if t.protocol == "cpwbft"]
    assert {t.rounds for t in cp} == {(0,), (1, 2, 3, 4, 5, 6)}
    assert len(targets) == 3 * 2 * (2 + 7)  # topologies x groups x (CP-WBFT 2 rows + SAC 7)
    with pytest.raises(ParameterError, match="per-round"):
        paper_targets("table1", "math")


def test_checkpoint_resumes_without_simulating(tmp_path: Path, monkeypatch) -> None:
    setting = Setting("k7", "complete", 7, tasks="arith:6", rounds=1, protocols=("cpwbft",))
    targets = [Target("k7", "cpwbft", "weak", (1,), 0.5, 6)]

    def calibration() -> Calibration:
        return Calibration([setting], targets, kind="math", checkpoint=tmp_path / "ckpt.json",
                           max_evaluations=4, presearch=2, blocks={"cpwbft": ("weak.accuracy",)})

    fit = calibration().fit()

    def no_simulation(*args, **kwargs):
        raise AssertionError("a stored evaluation was simulated again")

    monkeypatch.setattr(calibrate_module, "simulate", no_simulation)
    again = calibration().fit()  # the same deterministic path, every point read back
    assert again.values == fit.values and again.chi2 == fit.chi2


def test_a_block_returns_the_best_point_it_evaluated(tmp_path: Path, monkeypatch) -> None:
    # SciPy's Nelder-Mead, stopped by its budget inside an iteration, returns the best vertex
    # of its last complete simplex; the shipped fit's SAC block lost a better point that way.
    import numpy as np
    import scipy.optimize
    from scipy.optimize import OptimizeResult

    setting = Setting("k7", "complete", 7, tasks="arith:6", rounds=1, protocols=("cpwbft",))
    cal = Calibration([setting], [Target("k7", "cpwbft", "weak", (1,), 0.5, 6)], kind="math",
                      checkpoint=tmp_path / "ckpt.json", presearch=0,
                      blocks={"cpwbft": ("weak.accuracy",)})
    monkeypatch.setattr(cal, "objective", lambda values, protocols: abs(
        values["weak.accuracy"] - 0.3))

    def stopped_simplex(f, x0, **kwargs):  # evaluates a better point, returns the start
        f(np.full_like(x0, (0.3 - 0.01) / 0.98))  # weak.accuracy 0.3 in its bounds [0.01, 0.99]
        return OptimizeResult(x=x0, fun=f(x0))

    monkeypatch.setattr(scipy.optimize, "minimize", stopped_simplex)
    fitted = cal.fit_block("cpwbft", {"weak.accuracy": 0.45})
    assert fitted["weak.accuracy"] == pytest.approx(0.3)


def test_recovers_known_parameters_of_an_unseen_run(tmp_path: Path) -> None:
    world = SimConfig(model_share=0.0)  # independent agents: the pilot is small
    pilot = _pilot(tmp_path, set_values(world, TRUTH, "math"), seed=7)
    settings, targets, kind = targets_from_runs([pilot], tmp_path)
    assert kind == "math" and len(settings) == 1
    calibration = Calibration(
        settings, targets, kind=kind, base=world, checkpoint=tmp_path / "ckpt.json",
        seeds=(1,),  # another world seed than the pilot's: the fit never sees its draws
        max_evaluations=16, presearch=4,
        blocks={"cpwbft": ("strong.accuracy", "weak.accuracy"), "sac": ("weak.trust_when_wrong",)},
    )
    fit = calibration.fit()
    for name, value in TRUTH.items():
        assert abs(fit.values[name] - value) <= TOLERANCE[name], (name, fit.values[name])
    start = calibration.start()
    assert fit.chi2 < chi2(calibration.evaluate(start, ("cpwbft", "sac")), targets,
                           calibration.simulated_questions)


def test_recovers_how_often_right_agents_doubt(tmp_path: Path) -> None:
    # doubt_when_right (CP-WBFT): right strong agents that report less than the adversary's
    # 1.0 lose to it, so the strong agents' accuracy after round 1 falls as the share grows.
    sure = {"strong.confidence_right": 1.0, "weak.confidence_right": 1.0,
            "confidence_noise": 0.0}
    world = set_values(SimConfig(), sure, "math")
    truth = 0.15  # where the curve is steep (above 0.3 it saturates at 40 questions)
    pilot = _pilot(tmp_path, set_values(world, {"strong.doubt_when_right": truth}, "math"))
    settings, targets, kind = targets_from_runs([pilot], tmp_path)
    calibration = Calibration(
        settings, targets, kind=kind, base=world, checkpoint=tmp_path / "ckpt.json",
        seeds=(1,), max_evaluations=12, presearch=4,
        blocks={"cpwbft": ("strong.doubt_when_right",), "sac": ()},
    )
    fit = calibration.fit()
    assert abs(fit.values["strong.doubt_when_right"] - truth) <= 0.1, fit.values


def test_calibrate_command_writes_a_usable_profile(tmp_path: Path) -> None:
    pilot = _pilot(tmp_path, set_values(SimConfig(), {"weak.accuracy": 0.2}, "math"), tasks=12)
    out = tmp_path / "mine.json"
    result = CliRunner().invoke(main, [
        "calibrate", str(pilot), "-o", str(out), "--fit", "weak.accuracy",
        "--max-evaluations", "6", "--presearch", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["values"]) == {"weak.accuracy"} and report["targets"] > 0
    config = resolve_config(str(out))
    assert config.profiles["weak"].accuracy["math"] == pytest.approx(
        report["values"]["weak.accuracy"], abs=1e-6)
    assert config.description.startswith("profile calibrated on")
    assert (tmp_path / "mine.json.checkpoint.json").is_file()


def test_calibrate_command_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["calibrate", str(tmp_path), "-o", str(tmp_path / "p")])
    assert result.exit_code == 2
    assert "not a run directory" in result.output and "Traceback" not in result.output


def test_handset_profile_stays_available_by_name() -> None:
    assert named_config("handset") == SimConfig()
    assert resolve_config("handset") == SimConfig()
    with pytest.raises(ParameterError, match="known: handset"):
        resolve_config("no-such-profile")


def test_default_profile_follows_the_task_kind() -> None:
    assert default_profile({"math"}) == "table2-math"
    assert default_profile({"choice"}) == HANDSET and default_profile({"math", "bool"}) == HANDSET
    fitted = resolve_config(None, {"math"})
    assert fitted == named_config("table2-math") and fitted != SimConfig()
    assert fitted.description.startswith("profile fitted to the SAC paper's Table 2")
    assert fitted.task_share > 0  # the fit uses per-question difficulty


def test_a_default_run_names_its_profile_in_the_label(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "run", "--topology", "complete", "--n", "5", "--roster", "4S1A", "--F", "1",
        "--protocols", "sac", "--tasks", "arith:2", "--rounds", "1", "--no-plots", "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary = (out / "summary.md").read_text()
    assert "not LLM results (profile fitted to the SAC paper's Table 2" in summary
    assert json.loads((out / "summary.json").read_text())["run"]["sim_profile"].startswith(
        "profile fitted to the SAC paper's Table 2")
    assert results_profile(out) == named_config("table2-math").description  # reproduce's
    handset = tmp_path / "handset"
    result = CliRunner().invoke(main, [
        "run", "--topology", "complete", "--n", "5", "--roster", "4S1A", "--F", "1",
        "--protocols", "sac", "--tasks", "arith:2", "--rounds", "1", "--no-plots",
        "--sim-config", "handset", "-o", str(handset)])
    assert result.exit_code == 0, result.output
    assert "not LLM results (hand-set profile)" in (handset / "summary.md").read_text()


def test_a_run_without_cpwbft_fits_the_answers_with_sac(tmp_path: Path) -> None:
    setting = Setting("k7", "complete", 7, tasks="arith:4", protocols=("sac",))
    only_sac = Calibration([setting], [Target("k7", "sac", "weak", (0,), 0.5, 4)], kind="math",
                           checkpoint=tmp_path / "c.json")
    assert list(only_sac.blocks) == ["sac"]
    assert set(ANSWERS) <= set(only_sac.blocks["sac"])
    assert "strong.confidence_right" not in only_sac.blocks["sac"]  # CP-WBFT's alone: dropped


def test_a_checkpoint_of_another_fit_is_refused(tmp_path: Path) -> None:
    targets = [Target("k7", "cpwbft", "weak", (0,), 0.5, 4)]

    def make(tasks: str) -> Calibration:
        setting = Setting("k7", "complete", 7, tasks=tasks, rounds=1, protocols=("cpwbft",))
        return Calibration([setting], targets, kind="math", checkpoint=tmp_path / "c.json")

    first = make("arith:4")
    first.evaluate(first.start(), ("cpwbft",))
    assert make("arith:4").store == first.store  # the same fit reads it back
    with pytest.raises(ParameterError, match="another fit"):
        make("arith:5")



def _bfti(config: SimConfig, roster: str, seeds: range, tmp_path: Path) -> dict[str, float]:
    """BFTI (points) of SAC and CP-WBFT on one Table 5 cell (K7, F = 3, T = 6, 30 tasks),
    pooled over ``seeds`` as benchmarks/sim_validation.py pools them."""
    setting = Setting("k7", "complete", 7, roster=roster, F=3, rounds=6, tasks="arith:30")
    records = [r for seed in seeds for r in run_setting(config, setting, seed, tmp_path)]
    metrics = compute_metrics(records)
    return {p: 100 * metrics[p].value("BFTI") for p in ("sac", "cpwbft")}


def test_default_math_profile_keeps_the_papers_qualitative_findings(tmp_path: Path) -> None:
    # Table 5's b = 2, w = 1 cell on the complete graph (held out from the fit): CP-WBFT's
    # BFTI is negative, SAC's at or above about zero (-2.5 points, as the benchmark checks).
    # The previous fit (score margin 0, strong agents at confidence 1.0 when wrong) gave SAC
    # -4 points here. Only this cell's sign is pinned: others need more seeds to be robust.
    bfti = _bfti(resolve_config(None, {"math"}), "4S1W2A", range(1, 4), tmp_path)
    assert bfti["cpwbft"] < 0 and bfti["sac"] >= -2.5, bfti


def test_default_math_profile_keeps_sac_at_zero_with_three_adversaries(tmp_path: Path) -> None:
    # Table 5's b = 3, w = 0 cell on the complete graph (4S3A, held out): the paper's SAC BFTI
    # is +4.8. The fit without the trust >= judge constraint (strong agents reconsidering a
    # right answer 37% of the time) gave -3.0 here on these seeds, below the -2.5 floor.
    bfti = _bfti(resolve_config(None, {"math"}), "4S3A", range(1, 4), tmp_path)
    assert bfti["sac"] >= -2.5, bfti
