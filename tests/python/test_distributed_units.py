"""junqi.distributed piece by piece, in this process (no Ray cluster, short games).

The command line against its help and refusals (``generate`` and ``evaluate``
replaced by recorders: the arguments they get are the check), the Parquet shards'
schemas and values, what ``verify_shard`` reports for each kind of damage, the run's
manifest, the progress line's exact format on a clock set by hand, the policies
(agent seeds, descriptions, refusals, actors), ``generate``'s refusals and messages,
``fit_model`` and ``fit_eval``'s arguments and sources, and ``run_tasks`` against a
recording stand-in for Ray's API. docs/distributed.md describes what is checked here.
"""

from __future__ import annotations

import argparse

import codecs
import io
import json
import os
import pathlib
import sys
import types
from typing import Any, Callable, Iterator, Optional

import numpy as np
import pytest

pa: Any = pytest.importorskip(
    "pyarrow", reason='junqi.distributed needs the ray extra: pip install "./py[ray]"'
)
pq: Any = pytest.importorskip("pyarrow.parquet")

import junqi  # noqa: E402
import junqi.distributed.__main__ as cli_module  # noqa: E402
import junqi.distributed.model as model_module  # noqa: E402
import junqi.distributed.progress as progress_module  # noqa: E402
from junqi.distributed import ForeignShardError, Progress  # noqa: E402
from junqi.distributed.cluster import LOCAL_PROCESS, run_tasks  # noqa: E402
from junqi.distributed.play import PlayedGame, Steps, is_actor  # noqa: E402
from junqi.distributed.selfplay import GenerateResult, RulesArg, generate  # noqa: E402
from junqi.distributed.shards import (  # noqa: E402
    MANIFEST,
    _read,
    check_manifest,
    finished_ranges,
    games_table,
    shard_path,
    shard_seeds,
    steps_table,
    verify_shard,
    write_atomic,
)

CLASSIC = junqi.RuleSet("classic")
# Another name than the default rule set's (a stand-in for a lost rule set shows).
SHORT = {"extends": "classic", "name": "short", "options": {"no_capture_draw_plies": 30}}
SHORT_BOTH: list[RulesArg] = [SHORT, junqi.RuleSet(SHORT)]


# --- the command line ------------------------------------------------------------------

USAGE_GENERATE = """\
usage: python -m junqi.distributed generate [-h] [--rules RULES] [--address ADDRESS]
                                            [--max-plies MAX_PLIES] [--max-retries MAX_RETRIES]
                                            [--no-progress] --games GAMES --out OUT
                                            [--batch BATCH] [--seed SEED] [--steps]
                                            [--policy POLICY]
"""

USAGE_EVALUATE = """\
usage: python -m junqi.distributed evaluate [-h] [--rules RULES] [--address ADDRESS]
                                            [--max-plies MAX_PLIES] [--max-retries MAX_RETRIES]
                                            [--no-progress] --agent AGENT [--games GAMES]
                                            [--batch BATCH] [--seed SEED] [--json]
"""

USAGE_TOP = "usage: python -m junqi.distributed [-h] {generate,evaluate} ...\n"

COMMON_HELP = """\
options:
  -h, --help            show this help message and exit
  --rules RULES         preset name, rule-set JSON file or JSON text (default classic)
  --address ADDRESS     Ray cluster: auto, HOST:PORT, ray://HOST:PORT, or local-process (no Ray);
                        default: start a local cluster
  --max-plies MAX_PLIES
                        cut games short after this many plies (a draw)
  --max-retries MAX_RETRIES
                        reruns of a task whose worker died (default 3)
  --no-progress         no progress line on stderr
"""

HELP = {
    (): USAGE_TOP + """
Self-play data and evaluation of junqi agents on a Ray cluster.

positional arguments:
  {generate,evaluate}
    generate           play seeded games into Parquet shards
    evaluate           round robin between agents, with Elo

options:
  -h, --help           show this help message and exit
""",
    ("generate",): USAGE_GENERATE + "\n" + COMMON_HELP + """\
  --games GAMES
  --out OUT             output directory
  --batch BATCH         games per task and shard
  --seed SEED           run seed (default: the run in --out, or a fresh one)
  --steps               also write per-step shards
  --policy POLICY       random (default), an agent (greedy, search:3, ...) or module:callable
""",
    ("evaluate",): USAGE_EVALUATE + "\n" + COMMON_HELP + """\
  --agent AGENT         NAME=POLICY (random, an agent such as greedy or search:3, or
                        module:callable); at least two
  --games GAMES         games per pair of agents
  --batch BATCH         games per task
  --seed SEED
  --json                print the results as JSON
""",
}


class Recorder:
    """Stands in for ``generate`` or ``evaluate``: keeps the arguments, returns
    ``result`` (or raises it)."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


class FakeEvaluation:
    def __str__(self) -> str:
        return "the table"

    def to_dict(self) -> dict[str, Any]:
        return {"agents": [{"name": "a", "games": 2}], "seed": 0}


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """argparse wraps its help at the terminal's width: 100 columns here."""
    monkeypatch.setenv("COLUMNS", "100")


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``main(argv)``'s exit status (returned or raised), standard output and error."""
    try:
        status = cli_module.main(argv)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else -1
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize("command", list(HELP))
def test_cli_help(command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    # Every option's help text, the usage lines and the description: status 0.
    assert run_cli([*command, "--help"], capsys) == (0, HELP[command], "")


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize("argv, usage, message", [
    ([], USAGE_TOP, "python -m junqi.distributed: error: the following arguments are required: command"),
    (["generate", "--out", "o"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: the following arguments are required: --games"),
    (["generate", "--games", "1"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: the following arguments are required: --out"),
    (["generate", "--games", "x", "--out", "o"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --games: invalid int value: 'x'"),
    (["generate", "--games", "1", "--out", "o", "--batch", "x"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --batch: invalid int value: 'x'"),
    (["generate", "--games", "1", "--out", "o", "--seed", "x"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --seed: invalid int value: 'x'"),
    (["generate", "--games", "1", "--out", "o", "--max-plies", "x"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --max-plies: invalid int value: 'x'"),
    (["generate", "--games", "1", "--out", "o", "--max-retries", "x"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --max-retries: invalid int value: 'x'"),
    *[(["generate", "--games", "1", "--out", "o", "--policy", spec], USAGE_GENERATE,
       f"python -m junqi.distributed generate: error: argument --policy: policy {spec!r}: "
       "expected 'random', an agent ('greedy', 'search:3') or 'module:callable'")
      for spec in ["nocolon", ":x", "json:"]],
    # A module or attribute that is not there: refused as any other bad policy (it was
    # once a traceback and status 1: argparse catches only its own kinds of error).
    (["generate", "--games", "1", "--out", "o", "--policy", "nosuch_module_x:f"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --policy: policy 'nosuch_module_x:f': "
     "No module named 'nosuch_module_x'"),
    (["generate", "--games", "1", "--out", "o", "--policy", "os:nosuch"], USAGE_GENERATE,
     "python -m junqi.distributed generate: error: argument --policy: policy 'os:nosuch': "
     "module 'os' has no attribute 'nosuch'"),
    (["evaluate", "--agent", "a=random", "--agent", "b=os:path.nosuch"], USAGE_EVALUATE,
     "python -m junqi.distributed evaluate: error: argument --agent: policy 'os:path.nosuch': "
     "module 'posixpath' has no attribute 'nosuch'"),
    (["evaluate"], USAGE_EVALUATE,
     "python -m junqi.distributed evaluate: error: the following arguments are required: --agent"),
    *[(["evaluate", "--agent", spec], USAGE_EVALUATE,
       f"python -m junqi.distributed evaluate: error: argument --agent: agent {spec!r}: expected NAME=POLICY")
      for spec in ["a", "=random"]],
    (["evaluate", "--agent", "a=nocolon"], USAGE_EVALUATE,
     "python -m junqi.distributed evaluate: error: argument --agent: policy 'nocolon': "
     "expected 'random', an agent ('greedy', 'search:3') or 'module:callable'"),
    (["evaluate", "--agent", "a=random", "--agent", "b=random", "--games", "x"], USAGE_EVALUATE,
     "python -m junqi.distributed evaluate: error: argument --games: invalid int value: 'x'"),
    (["evaluate", "--agent", "a=random", "--agent", "a=greedy"], USAGE_TOP,
     "python -m junqi.distributed: error: agent names must differ"),
])
def test_cli_refusals(argv: list[str], usage: str, message: str,
                      capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused command line: status 2, the usage and the reason on stderr, nothing run.
    recorder = Recorder(None)
    monkeypatch.setattr(cli_module, "generate", recorder)
    monkeypatch.setattr(cli_module, "evaluate", recorder)
    assert run_cli(argv, capsys) == (2, "", usage + message + "\n")
    assert recorder.calls == []


def generated(out: str) -> GenerateResult:
    return GenerateResult(pathlib.Path(out), 9, 30, 20, [pathlib.Path("a"), pathlib.Path("b")], 1)


def test_cli_generate_defaults(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the required options: every documented default reaches generate; the summary.
    monkeypatch.chdir(tmp_path)
    recorder = Recorder(generated("runs/x"))
    monkeypatch.setattr(cli_module, "generate", recorder)
    assert run_cli(["generate", "--games", "30", "--out", "runs/x"], capsys) == (
        0, "runs/x: 30 games (seed 9); 20 played now in 2 shards, 1 shards already there\n", "")
    assert recorder.calls == [(("classic", 30, "runs/x", "random"), dict(
        address=None, batch=100, seed=None, steps=False, max_plies=None, progress=True,
        max_retries=3))]


def test_cli_generate_every_option(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Every option is read; --rules JSON text goes as it is, a module:callable policy is
    # the callable (through a dotted attribute too), an agent's name stays a name.
    recorder = Recorder(generated(str(tmp_path)))
    monkeypatch.setattr(cli_module, "generate", recorder)
    text = '  {"extends": "classic", "name": "x.json"}'
    status, _, _ = run_cli(["generate", "--games", "3", "--out", "o", "--rules", text,
                            "--address", "local-process", "--max-plies", "7", "--max-retries", "1",
                            "--no-progress", "--batch", "2", "--seed", "11", "--steps",
                            "--policy", "os:path.join"], capsys)
    assert status == 0
    assert recorder.calls == [((text, 3, "o", os.path.join), dict(
        address="local-process", batch=2, seed=11, steps=True, max_plies=7, progress=False,
        max_retries=1))]
    for policy in ["greedy", "search:3", "random"]:
        assert run_cli(["generate", "--games", "1", "--out", "o", "--policy", policy], capsys)[0] == 0
        assert recorder.calls[-1][0][3] == policy


def test_cli_rules_from_files(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A .json path is read; so is an existing file of any name; a directory or a missing
    # file of another name is a preset's name; a missing .json file is an error (2).
    monkeypatch.chdir(tmp_path)
    recorder = Recorder(generated("o"))
    monkeypatch.setattr(cli_module, "generate", recorder)
    (tmp_path / "r.json").write_text("JSON ONE", encoding="utf-8")
    (tmp_path / "rules.txt").write_text("JSON TWO", encoding="utf-8")
    (tmp_path / "classic").mkdir()
    for arg, rules in [("r.json", "JSON ONE"), ("rules.txt", "JSON TWO"), ("classic", "classic"),
                       ("siguo", "siguo")]:
        assert run_cli(["generate", "--games", "1", "--out", "o", "--rules", arg], capsys)[0] == 0
        assert recorder.calls[-1][0][0] == rules
    status, out, err = run_cli(["generate", "--games", "1", "--out", "o", "--rules", "gone.json"], capsys)
    assert (status, out) == (2, "")
    assert err == "error: [Errno 2] No such file or directory: 'gone.json'\n"


def test_cli_json_text_is_never_a_path(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Text starting with "{" (after spaces) is JSON, even if a file has that name; a
    # file is read as UTF-8 whatever the locale says.
    monkeypatch.chdir(tmp_path)
    recorder = Recorder(generated("o"))
    monkeypatch.setattr(cli_module, "generate", recorder)
    text = '  {"extends": "classic", "name": "军棋"}'
    (tmp_path / text).write_text("a file", encoding="utf-8")
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    encodings: list[str] = []
    read_text = pathlib.Path.read_text

    def spy(self: pathlib.Path, encoding: Optional[str] = None, errors: Optional[str] = None) -> str:
        encodings.append(codecs.lookup(encoding).name if encoding else repr(encoding))
        return read_text(self, encoding, errors)

    monkeypatch.setattr(pathlib.Path, "read_text", spy)
    for arg in [text, "r.json"]:
        assert run_cli(["generate", "--games", "1", "--out", "o", "--rules", arg], capsys)[0] == 0
        assert recorder.calls[-1][0][0] == text
    assert encodings == ["utf-8"]


def test_cli_policy_splits_at_the_first_colon() -> None:
    # module:attribute.attribute: the module is what comes before the first colon.
    assert cli_module._policy("os:path.sep") == os.path.sep
    with pytest.raises(argparse.ArgumentTypeError, match="^policy 'os:path:sep': module 'os' has no attribute 'path:sep'$"):
        cli_module._policy("os:path:sep")


@pytest.mark.parametrize("error", [ValueError("bad seed"), TypeError("bad type"), OSError("disk full")])
def test_cli_errors_are_status_2(error: Exception, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # What generate or evaluate refuses: "error: …" on stderr, status 2, no traceback.
    monkeypatch.setattr(cli_module, "generate", Recorder(error))
    monkeypatch.setattr(cli_module, "evaluate", Recorder(error))
    assert run_cli(["generate", "--games", "1", "--out", "o"], capsys) == (2, "", f"error: {error}\n")
    assert run_cli(["evaluate", "--agent", "a=random", "--agent", "b=random"], capsys) == (
        2, "", f"error: {error}\n")


def test_cli_evaluate(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The defaults and every option reach evaluate; the table printed, or its JSON.
    recorder = Recorder(FakeEvaluation())
    monkeypatch.setattr(cli_module, "evaluate", recorder)
    assert run_cli(["evaluate", "--agent", "a=random", "--agent", "b=greedy"], capsys) == (
        0, "the table\n", "")
    assert recorder.calls[-1] == (("classic", {"a": "random", "b": "greedy"}, 100), dict(
        seed=0, address=None, batch=50, max_plies=None, progress=True, max_retries=3))
    status, out, err = run_cli(
        ["evaluate", "--agent", "a=random", "--agent", "b=os:path.join", "--agent", "c=search:iters=20",
         "--rules", "siguo", "--games", "4", "--batch", "3", "--seed", "5", "--max-plies", "9",
         "--max-retries", "0", "--address", "auto", "--no-progress", "--json"], capsys)
    assert (status, err) == (0, "")
    assert out == '{\n  "agents": [\n    {\n      "name": "a",\n      "games": 2\n    }\n  ],\n  "seed": 0\n}\n'
    assert recorder.calls[-1] == (("siguo", {"a": "random", "b": os.path.join, "c": "search:iters=20"}, 4),
                                  dict(seed=5, address="auto", batch=3, max_plies=9, progress=False,
                                       max_retries=0))


def test_cli_runs_a_real_generate(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # End to end in this process: the summary line names the run's directory and counts.
    out = tmp_path / "run"
    assert run_cli(["generate", "--games", "3", "--out", str(out), "--batch", "2", "--seed", "4",
                    "--max-plies", "6", "--address", "local-process", "--no-progress"], capsys) == (
        0, f"{out}: 3 games (seed 4); 3 played now in 2 shards, 0 shards already there\n", "")
    assert run_cli(["generate", "--games", "3", "--out", str(out), "--batch", "2", "--seed", "4",
                    "--max-plies", "6", "--address", "local-process", "--no-progress"], capsys) == (
        0, f"{out}: 3 games (seed 4); 0 played now in 0 shards, 2 shards already there\n", "")


# --- shards ----------------------------------------------------------------------------


def played(index: int, seed: int = 1, plies: int = 2, winners: Optional[list[str]] = None) -> PlayedGame:
    """A game row written by hand (nothing is played)."""
    won = winners is not None
    return PlayedGame(index, seed, ("policy", "other"), winners or [],
                      "flag_captured" if won else None, not won, plies,
                      [1.0, -1.0] if won else [0.0, 0.0], f"record {index}",
                      [f"south {index}", f"north {index}"])


def write_games(out: pathlib.Path, start: int, stop: int, run_seed: int = 7,
                games: Optional[list[PlayedGame]] = None, rules: junqi.RuleSet = CLASSIC) -> pathlib.Path:
    (out / "games").mkdir(parents=True, exist_ok=True)
    rows = games if games is not None else [played(i) for i in range(start, stop)]
    path = shard_path(out, "games", start, stop)
    write_atomic(games_table(rules, run_seed, rows), path)
    return path


def some_steps(games: list[int]) -> Steps:
    channels, points = CLASSIC.observation_spec()["shape"]
    s = Steps()
    for k, g in enumerate(games):
        s.game.append(g)
        s.ply.append(k)
        s.seat.append("south" if k % 2 == 0 else "north")
        s.action.append(10 + k)
        s.reward.append(0.5 * k)
        s.outcome.append(-1.0 + k)
        s.observation.append(np.full((channels, points), k + 0.25, dtype=np.float32))
        mask = np.zeros(CLASSIC.action_space, dtype=np.int8)
        mask[k] = 1
        s.mask.append(mask)
    return s


def write_steps(out: pathlib.Path, start: int, stop: int, games: list[int]) -> pathlib.Path:
    (out / "steps").mkdir(parents=True, exist_ok=True)
    path = shard_path(out, "steps", start, stop)
    write_atomic(steps_table(CLASSIC, some_steps(games)), path)
    return path


def test_shard_names_and_finished_ranges(tmp_path: pathlib.Path) -> None:
    # games-AAAAAAAAA-BBBBBBBBB.parquet holds games A to B inclusive; only such names count.
    assert shard_path(tmp_path, "games", 0, 100) == tmp_path / "games" / "games-000000000-000000099.parquet"
    assert shard_path(tmp_path, "steps", 1234567890, 1234567891).name == "steps-1234567890-1234567890.parquet"
    assert finished_ranges(tmp_path) == set()
    (tmp_path / "games").mkdir()
    for name in ["games-000000000-000000009.parquet", "games-000000010-1000000019.parquet",
                 ".games-000000020-000000029.parquet.abc.tmp", "games-00000003-000000039.parquet",
                 "games-000000040-000000049.parquet.tmp", "steps-000000050-000000059.parquet",
                 "xgames-000000060-000000069.parquet", "games-000000070-000000079xparquet"]:
        (tmp_path / "games" / name).write_bytes(b"")
    assert finished_ranges(tmp_path) == {(0, 10), (10, 1000000020)}


def test_games_table_schema_and_values() -> None:
    # The columns of docs/distributed.md, in order, with their types and values.
    top = (1 << 64) - 1
    rows = [played(3, seed=top, plies=17, winners=["south"]), played(4, seed=5, plies=80)]
    table = games_table(CLASSIC, top, rows)
    assert [(f.name, str(f.type)) for f in table.schema] == [
        ("rules", "string"), ("run_seed", "uint64"), ("game", "int64"), ("game_seed", "uint64"),
        ("winners", "list<item: string>"), ("reason", "string"), ("truncated", "bool"),
        ("plies", "int32"), ("agent_south", "string"), ("agent_north", "string"),
        ("reward_south", "float"), ("reward_north", "float"), ("record", "string"),
        ("player_record_south", "string"), ("player_record_north", "string")]
    assert table.to_pylist() == [
        {"rules": "classic", "run_seed": top, "game": 3, "game_seed": top, "winners": ["south"],
         "reason": "flag_captured", "truncated": False, "plies": 17, "agent_south": "policy",
         "agent_north": "other", "reward_south": 1.0, "reward_north": -1.0, "record": "record 3",
         "player_record_south": "south 3", "player_record_north": "north 3"},
        {"rules": "classic", "run_seed": top, "game": 4, "game_seed": 5, "winners": [],
         "reason": None, "truncated": True, "plies": 80, "agent_south": "policy",
         "agent_north": "other", "reward_south": 0.0, "reward_north": 0.0, "record": "record 4",
         "player_record_south": "south 4", "player_record_north": "north 4"}]
    # 四国: four seats, in rules.sides order.
    four = PlayedGame(0, 1, ("a", "b", "c", "d"), [], None, True, 1, [0.1, 0.2, 0.3, 0.4], "r",
                      ["ps", "pe", "pn", "pw"])
    row = games_table(junqi.RuleSet("siguo"), 2, [four]).to_pylist()[0]
    sides = [s.id for s in junqi.RuleSet("siguo").sides]
    assert [row[f"agent_{s}"] for s in sides] == ["a", "b", "c", "d"]
    assert [row[f"reward_{s}"] for s in sides] == pytest.approx([0.1, 0.2, 0.3, 0.4])
    assert [row[f"player_record_{s}"] for s in sides] == ["ps", "pe", "pn", "pw"]


def test_games_table_of_no_game() -> None:
    # The types hold with no row to infer them from.
    assert [(f.name, str(f.type)) for f in games_table(CLASSIC, 1, []).schema] == [
        (f.name, str(f.type)) for f in games_table(CLASSIC, 1, [played(0, winners=["south"])]).schema]
    # A shard whose games were all cut short (no reason): still a string column.
    assert str(games_table(CLASSIC, 1, [played(0)]).schema.field("reason").type) == "string"


def test_shards_are_written_hidden_then_renamed(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A shard or the manifest is written to a hidden ".NAME.….tmp" file in its own
    # directory (no reader takes it for a shard), then renamed into place.
    renames: list[tuple[str, str]] = []
    replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        renames.append((str(src), str(dst)))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    path = write_games(tmp_path, 0, 1)
    check_manifest(tmp_path, {"seed": 1})
    assert [dst for _, dst in renames] == [str(path), str(tmp_path / MANIFEST)]
    for src, dst in renames:
        folder, name = os.path.split(src)
        assert folder == os.path.dirname(dst)
        base = os.path.basename(dst)
        assert name.startswith(f".{base}.") and name.endswith(".tmp") and len(name) == len(base) + 38
    assert os.listdir(tmp_path / "games") == [path.name]


def test_verify_shard_reads_only_the_steps_game_column(tmp_path: pathlib.Path) -> None:
    # The steps shard's observation pages (most of the file) are not read: a byte
    # flipped there goes unseen (reading every column does see it).
    write_games(tmp_path, 0, 2, games=[played(0, plies=1), played(1, plies=1)])
    spath = write_steps(tmp_path, 0, 2, [0, 1])
    meta = pq.ParquetFile(spath).metadata.row_group(0)
    observation = meta.column(3)
    assert observation.path_in_schema == "observation.list.element"
    data = bytearray(spath.read_bytes())
    first = observation.dictionary_page_offset if observation.has_dictionary_page else observation.data_page_offset
    end = first + observation.total_compressed_size
    data[end - 2] ^= 0xFF                     # the last bytes of its last data page
    spath.write_bytes(bytes(data))
    assert verify_shard(tmp_path, 0, 2, 7, "classic", True) is None
    with pytest.raises(OSError):
        _read(spath)


STEPS_SCHEMA = [("game", "int64"), ("ply", "int32"), ("seat", "string"),
                ("observation", "fixed_size_list<item: float>[2940]"),
                ("mask", "fixed_size_list<item: bool>[1188]"), ("action", "int32"),
                ("reward", "float"), ("outcome", "float")]


def test_steps_table_schema_and_values() -> None:
    # One row per ply: the observation flattened ([channels × points] = 49 × 60 in
    # classic), the mask as booleans (action_space long).
    table = steps_table(CLASSIC, some_steps([6, 6, 7]))
    assert [(f.name, str(f.type)) for f in table.schema] == STEPS_SCHEMA
    rows = table.to_pylist()
    assert [(r["game"], r["ply"], r["seat"], r["action"], r["reward"], r["outcome"]) for r in rows] == [
        (6, 0, "south", 10, 0.0, -1.0), (6, 1, "north", 11, 0.5, 0.0), (7, 2, "south", 12, 1.0, 1.0)]
    for k, r in enumerate(rows):
        assert r["observation"] == [k + 0.25] * 2940
        assert r["mask"] == [i == k for i in range(1188)]
    empty = steps_table(CLASSIC, Steps())
    assert empty.num_rows == 0 and [(f.name, str(f.type)) for f in empty.schema] == STEPS_SCHEMA


def test_write_atomic(tmp_path: pathlib.Path) -> None:
    # Zstd pages with checksums (a flipped byte of a data page does not read back); no
    # temporary file is left, even when the rename fails.
    path = tmp_path / "t.parquet"
    table = pa.table({"x": pa.array(list(range(1000)), pa.int64())})
    write_atomic(table, path)
    assert os.listdir(tmp_path) == ["t.parquet"]
    meta = pq.ParquetFile(path).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert _read(path).equals(table)
    data = bytearray(path.read_bytes())
    data[40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC checksum verification failed"):
        _read(path)
    (tmp_path / "dir.parquet").mkdir()
    (tmp_path / "dir.parquet" / "inside").write_text("")
    with pytest.raises(OSError):
        write_atomic(table, tmp_path / "dir.parquet")
    assert sorted(os.listdir(tmp_path)) == ["dir.parquet", "t.parquet"]


def test_verify_shard_names_each_damage(tmp_path: pathlib.Path) -> None:
    # Each way a shard can be wrong, with its message; a complete shard is None.
    out = tmp_path
    write_games(out, 0, 2, games=[played(0, plies=2), played(1, plies=3)])
    write_steps(out, 0, 2, [0, 0, 1, 1, 1])
    assert verify_shard(out, 0, 2, 7, "classic", True) is None
    assert verify_shard(out, 0, 2, 7, "classic", False) is None
    name = "games-000000000-000000001.parquet"
    assert verify_shard(out, 0, 2, 7, "short", False) == f"{name} holds games of another rule set"
    assert verify_shard(out, 2, 4, 7, "classic", False) == "games-000000002-000000003.parquet is missing"
    # The steps shard: missing, wrong length, games outside the range, unreadable.
    write_steps(out, 0, 2, [0, 0, 1, 1])
    assert verify_shard(out, 0, 2, 7, "classic", False) is None
    assert verify_shard(out, 0, 2, 7, "classic", True) == (
        "steps-000000000-000000001.parquet holds 4 steps, the games have 5 plies")
    for outside in ([0, 0, 1, 1, 2], [-1, 0, 1, 1, 1]):
        write_steps(out, 0, 2, outside)
        assert verify_shard(out, 0, 2, 7, "classic", True) == (
            "steps-000000000-000000001.parquet holds steps of games outside 0 to 1")
    shard_path(out, "steps", 0, 2).write_bytes(b"")
    problem = verify_shard(out, 0, 2, 7, "classic", True) or ""
    assert problem.startswith("steps-000000000-000000001.parquet does not read back (ArrowInvalid: ")
    assert problem.endswith("Parquet file size is 0 bytes)")
    shard_path(out, "steps", 0, 2).unlink()
    assert verify_shard(out, 0, 2, 7, "classic", True) == "steps-000000000-000000001.parquet is missing"
    # The games shard: unreadable, too few rows, a column lost, out of order.
    shard_path(out, "games", 0, 2).write_bytes(b"PAR1")
    problem = verify_shard(out, 0, 2, 7, "classic", False) or ""
    assert problem.startswith(f"{name} does not read back (ArrowInvalid: ") and problem.endswith(")")
    write_games(out, 0, 2, games=[played(0)])
    assert verify_shard(out, 0, 2, 7, "classic", False) == f"{name} holds 1 rows, 2 games were written"
    table = games_table(CLASSIC, 7, [played(0), played(1)])
    for dropped, first in [(["plies"], "plies"), (["rules", "game"], "game"), (["run_seed", "rules"], "rules"),
                           (["run_seed"], "run_seed")]:
        write_atomic(table.drop(dropped), shard_path(out, "games", 0, 2))
        assert verify_shard(out, 0, 2, 7, "classic", False) == f"{name} has no column {first!r}"
    write_games(out, 0, 2, games=[played(1), played(0)])
    assert verify_shard(out, 0, 2, 7, "classic", False) == f"{name} does not hold games 0 to 1 in order"


def test_verify_shard_refuses_another_run_seed(tmp_path: pathlib.Path) -> None:
    # A shard of another run seed is never to be rewritten: ForeignShardError, naming
    # the smallest other seed (None if the shard holds no game at all).
    path = write_games(tmp_path, 0, 2, run_seed=5)
    for seeds, other in [([5, 5], 5), ([7, 5], 5), ([9, 3], 3)]:
        table = games_table(CLASSIC, 0, [played(0), played(1)]).set_column(
            1, "run_seed", pa.array(seeds, pa.uint64()))
        write_atomic(table, path)
        with pytest.raises(ForeignShardError) as info:
            verify_shard(tmp_path, 0, 2, 7, "classic", False)
        assert str(info.value) == (
            f"{path} holds games of run seed {other}, not 7: refusing to mix two runs in "
            f"{tmp_path} (move it away, or resume with that seed)")
    assert issubclass(ForeignShardError, ValueError)
    empty = write_games(tmp_path, 0, 0, games=[])
    with pytest.raises(ForeignShardError, match=r"holds games of run seed None, not 7: "):
        verify_shard(tmp_path, 0, 0, 7, "classic", False)
    assert empty.exists()


def test_shard_seeds(tmp_path: pathlib.Path) -> None:
    # The run seeds of the readable games shards, each with the first shard holding it.
    assert shard_seeds(tmp_path) == {}
    write_games(tmp_path, 0, 2, run_seed=4)
    write_games(tmp_path, 2, 4, run_seed=3)
    write_games(tmp_path, 4, 6, run_seed=4)
    shard_path(tmp_path, "games", 6, 8).write_bytes(b"garbage")
    assert shard_seeds(tmp_path) == {4: shard_path(tmp_path, "games", 0, 2),
                                     3: shard_path(tmp_path, "games", 2, 4)}
    # An unreadable shard is skipped, not the end of the search.
    os.replace(shard_path(tmp_path, "games", 0, 2), shard_path(tmp_path, "games", 8, 10))
    shard_path(tmp_path, "games", 0, 2).write_bytes(b"garbage")
    assert shard_seeds(tmp_path) == {3: shard_path(tmp_path, "games", 2, 4),
                                     4: shard_path(tmp_path, "games", 4, 6)}


def test_check_manifest(tmp_path: pathlib.Path) -> None:
    # A new run: the directories and _run.json (sorted keys, indented); the same run
    # again: the stored manifest; another: refused, naming the first difference.
    out = tmp_path / "a" / "b"
    manifest = {"seed": 3, "games": 10, "steps": True, "max_plies": None}
    assert check_manifest(out, manifest) is None
    assert sorted(os.listdir(out)) == [MANIFEST, "games", "steps"]
    assert MANIFEST == "_run.json"
    assert (out / MANIFEST).read_text(encoding="utf-8") == (
        '{\n  "games": 10,\n  "max_plies": null,\n  "seed": 3,\n  "steps": true\n}')
    assert check_manifest(out, manifest) == manifest
    assert check_manifest(out, {"games": 10}) == manifest
    changes: list[tuple[dict[str, Any], str, str]] = [({"games": 11}, "10", "11"), ({"max_plies": 5}, "None", "5"),
                                                      ({"policy": "greedy"}, "None", "'greedy'")]
    for change, there, now in changes:
        key = next(iter(change))
        with pytest.raises(ValueError) as info:
            check_manifest(out, {**manifest, **change})
        assert str(info.value) == (f"{out} holds another run ({key}: {there} there, {now} now); "
                                   "choose another output directory")
    plain = tmp_path / "plain"
    assert check_manifest(plain, {"steps": False}) is None
    assert sorted(os.listdir(plain)) == [MANIFEST, "games"]
    # Existing directories are fine.
    assert check_manifest(tmp_path / "c", {}) is None
    assert check_manifest(tmp_path / "c", {}) == {}


def test_resumed_generate_rewrites_only_the_damaged_shard(tmp_path: pathlib.Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Games 0 to 4 in batches of 2: a damaged shard is played again (with a warning
    # naming it), the others are skipped; the rows are those of the first run.
    kw: dict[str, Any] = dict(address=LOCAL_PROCESS, batch=2, seed=3, steps=True, max_plies=6,
                              progress=False)
    first = generate("classic", 5, tmp_path, **kw)
    assert (first.games, first.played, first.shards_skipped, first.seed) == (5, 5, 0, 3)
    assert first.shards_written == [shard_path(tmp_path, "games", a, b) for a, b in [(0, 2), (2, 4), (4, 5)]]
    before = pq.read_table(tmp_path / "games").sort_by("game")
    shard_path(tmp_path, "steps", 2, 4).write_bytes(b"")
    with pytest.warns(UserWarning) as caught:
        again = generate("classic", 5, tmp_path, **kw)
    assert [str(w.message).split(" (")[0] for w in caught] == [
        "rewriting a damaged shard: steps-000000002-000000003.parquet does not read back"]
    # The warning points at generate's caller, not at generate itself (under mutmut,
    # which sets MUTANT_UNDER_TEST, its wrapper adds frames: there only "not generate").
    assert caught[0].filename != junqi.distributed.selfplay.__file__
    if "MUTANT_UNDER_TEST" not in os.environ:
        assert caught[0].filename == __file__
    assert (again.played, again.shards_skipped) == (2, 2)
    assert again.shards_written == [shard_path(tmp_path, "games", 2, 4)]
    assert pq.read_table(tmp_path / "games").sort_by("game").equals(before)
    # The progress line of a resumed run counts the skipped games as done.
    shard_path(tmp_path, "games", 0, 2).unlink()
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    generate("classic", 5, tmp_path, **{**kw, "progress": True})
    assert stream.getvalue().splitlines()[-1].startswith("junqi: 5/5 games (100.0%), ")


# --- the progress line -----------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The progress module's clock, set by hand."""
    c = Clock()
    monkeypatch.setattr(progress_module, "time", c)
    return c


def test_progress_line_format(clock: Clock) -> None:
    # "junqi: 400/1000 games (40.0%), 100.0 games/s, ETA 0:06": the rate counts only
    # this run's games (not the 200 skipped), the ETA from what is left.
    clock.now = 10.0
    bar = Progress(1000, 200, stream=io.StringIO())
    assert (bar.total, bar.done, bar.skipped, bar.every, bar.label) == (1000, 200, 200, 0.5, "games")
    assert bar.line() == "junqi: 200/1000 games (20.0%), 0.0 games/s, ETA ?"
    clock.now = 12.0
    bar.done = 400
    assert bar.rate == 100.0
    assert bar.line() == "junqi: 400/1000 games (40.0%), 100.0 games/s, ETA 0:06"
    steps = Progress(0, label="steps", stream=io.StringIO())
    assert steps.line() == "junqi: 0/0 steps (100.0%), 0.0 steps/s, ETA ?"
    assert steps.rate == 0.0


@pytest.mark.parametrize("seconds, shown", [
    (0.0, "0:00"), (59.4, "0:59"), (59.6, "1:00"), (61.0, "1:01"), (599.0, "9:59"),
    (3599.0, "59:59"), (3600.0, "1:00:00"), (3725.0, "1:02:05"), (36000.0 + 62.0, "10:01:02"),
])
def test_progress_eta_clock(seconds: float, shown: str) -> None:
    # The ETA and the elapsed time: m:ss, or h:mm:ss past an hour, to the nearest second.
    assert progress_module._clock(seconds) == shown


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_advance_and_finish(clock: Clock) -> None:
    # A line at most every `every` seconds (exactly `every` apart is due), none once
    # every game is done, then the final line with the elapsed time.
    stream = io.StringIO()
    bar = Progress(10, stream=stream, every=0.5)
    clock.now = 0.5
    bar.advance(1)
    clock.now = 0.9
    bar.advance(1)
    clock.now = 1.0
    bar.advance(2)
    clock.now = 2.0
    bar.advance(6)
    clock.now = 62.0
    bar.finish()
    assert stream.getvalue() == (
        "junqi: 1/10 games (10.0%), 2.0 games/s, ETA 0:04\n"
        "junqi: 4/10 games (40.0%), 4.0 games/s, ETA 0:02\n"
        "junqi: 10/10 games (100.0%), 0.2 games/s, ETA 0:00; done in 1:02\n")
    # On a terminal the line rewrites itself.
    tty = Terminal()
    bar = Progress(10, stream=tty, every=0.0)
    clock.now = 64.0
    bar.advance(5)
    assert tty.getvalue() == "junqi: 5/10 games (50.0%), 2.5 games/s, ETA 0:02\r"
    # Disabled: silent, though it still counts.
    quiet = io.StringIO()
    off = Progress(10, stream=quiet, enabled=False, every=0.0)
    clock.now = 70.0
    off.advance(5)
    off.finish()
    assert quiet.getvalue() == "" and off.done == 5


class Pipe:
    """A stream with neither isatty nor buffering of its own: what was flushed."""

    def __init__(self) -> None:
        self.written = ""
        self.flushed = ""

    def write(self, text: str) -> int:
        self.written += text
        return len(text)

    def flush(self) -> None:
        self.flushed = self.written


def test_progress_flushes_each_line(clock: Clock) -> None:
    # Each line is flushed as printed (a pipe is not a terminal: lines end in "\n"); the
    # elapsed time counts from the start.
    clock.now = 100.0
    pipe = Pipe()
    bar = Progress(4, stream=pipe, every=0.0)  # type: ignore[arg-type]
    clock.now = 101.0
    bar.advance(1)
    assert pipe.flushed == pipe.written == "junqi: 1/4 games (25.0%), 1.0 games/s, ETA 0:03\n"
    clock.now = 104.0
    bar.advance(3)
    bar.finish()
    assert pipe.flushed == pipe.written == (
        "junqi: 1/4 games (25.0%), 1.0 games/s, ETA 0:03\n"
        "junqi: 4/4 games (100.0%), 1.0 games/s, ETA 0:00; done in 0:04\n")


def test_progress_writes_to_stderr(clock: Clock, capsys: pytest.CaptureFixture[str]) -> None:
    bar = Progress(4, 1)
    clock.now = 1.0
    bar.advance(1)
    bar.finish()
    assert capsys.readouterr() == ("", "junqi: 2/4 games (50.0%), 1.0 games/s, ETA 0:02\n"
                                       "junqi: 2/4 games (50.0%), 1.0 games/s, ETA 0:02; done in 0:01\n")


# --- fit_model, fit_eval -----------------------------------------------------------------


@pytest.fixture
def recorded_generate(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """``generate`` as model.py calls it, recorded, then run in this process with the
    random player and 30-ply games (fast whatever was asked)."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def fake(rules: Any, games: int, out: Any, policy: Any, **kw: Any) -> GenerateResult:
        calls.append(((rules, games, out, policy), kw))
        return generate(rules, games, out, "random", address=LOCAL_PROCESS, batch=2,
                        seed=kw["seed"], max_plies=30, progress=False)

    monkeypatch.setattr(model_module, "generate", fake)
    return calls


def test_fit_model_arguments_and_source(tmp_path: pathlib.Path,
                                        recorded_generate: list[Any]) -> None:
    # The defaults (greedy, batch 100, 1000 plies, a progress line) reach generate; the
    # model counts every game of the run and names them in its source.
    model = junqi.distributed.fit_model(SHORT, 6, tmp_path, seed=5)
    assert recorded_generate == [((SHORT, 6, tmp_path, "greedy"), dict(
        address=None, batch=100, seed=5, max_plies=1000, progress=True))]
    assert model.games == 6 and model.rules_name == "short"
    assert json.loads(model.to_json())["source"] == (
        "6 self-play games of greedy, run seed 5, at most 1000 plies: "
        "junqi.distributed.fit_model (docs/inference.md)")
    for rules in SHORT_BOTH:
        again = junqi.distributed.count_run(rules, tmp_path)
        assert json.loads(again.to_json()) == {**json.loads(model.to_json()), "source": ""}
    other = junqi.distributed.fit_model(junqi.RuleSet(SHORT), 6, tmp_path, "random", address="auto",
                                        batch=3, seed=5, max_plies=None, progress=False)
    assert other.rules_name == "short" and other.games == 6
    assert recorded_generate[-1][1] == dict(address="auto", batch=3, seed=5, max_plies=None,
                                            progress=False)


def test_fit_eval_arguments_and_source(tmp_path: pathlib.Path,
                                       recorded_generate: list[Any]) -> None:
    # The defaults (greedy with the derived weights, every third ply) reach generate and
    # the fit; the source says what was played.
    fitted = json.loads(junqi.distributed.fit_eval(SHORT, 6, tmp_path, seed=5))
    assert fitted["rules"] == "short"
    assert recorded_generate == [((SHORT, 6, tmp_path, "greedy:eval=derived"), dict(
        address=None, batch=100, seed=5, max_plies=1000, progress=True))]
    assert fitted["source"] == (
        "6 self-play games of greedy:eval=derived, run seed 5, every 3 plies, at most 1000 "
        "plies: junqi.distributed.fit_eval (docs/agents.md)")
    by_hand = junqi.EvalFit(junqi.RuleSet(SHORT), 3)
    for record in pq.read_table(tmp_path / "games").sort_by("game").column("record").to_pylist():
        assert by_hand.count(junqi.Game.from_record(record))
    assert (fitted["games"], fitted["positions"]) == (6, by_hand.positions)
    for rules in SHORT_BOTH:
        assert json.loads(junqi.distributed.fit_eval_run(rules, tmp_path)) == {**fitted, "source": ""}
    sparse = json.loads(junqi.distributed.fit_eval(
        junqi.RuleSet(SHORT), 6, tmp_path, "random", address="auto", batch=3, seed=5,
        max_plies=None, every=5, progress=False))
    assert recorded_generate[-1][1] == dict(address="auto", batch=3, seed=5, max_plies=None,
                                            progress=False)
    every5 = junqi.EvalFit(junqi.RuleSet(SHORT), 5)
    for record in pq.read_table(tmp_path / "games").column("record").to_pylist():
        every5.count(junqi.Game.from_record(record))
    assert sparse["positions"] == every5.positions < by_hand.positions
    assert sparse["source"].startswith("6 self-play games of random, run seed 5, every 5 plies, at most None plies")


def test_count_run_reads_only_the_records(tmp_path: pathlib.Path) -> None:
    # Counting reads a shard's record column alone: damage to another column's pages
    # (here the last player records) does not stop it.
    generate("classic", 5, tmp_path, address=LOCAL_PROCESS, batch=5, seed=1, max_plies=6, progress=False)
    path = shard_path(tmp_path, "games", 0, 5)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(14)
    assert chunk.path_in_schema == "player_record_north"
    first = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    data = bytearray(path.read_bytes())
    data[first + chunk.total_compressed_size - 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(OSError):
        _read(path)
    assert junqi.distributed.count_run("classic", tmp_path).games == 5
    assert json.loads(junqi.distributed.fit_eval_run("classic", tmp_path))["games"] == 5
    # So does finding the run seed a shard was written with (shard_seeds reads that
    # column alone; the shard is rewritten, but its seed still names a foreign run).
    assert shard_seeds(tmp_path) == {1: path}


def test_run_games_in_game_order(tmp_path: pathlib.Path) -> None:
    # The games of a run in game order, whatever order the directory lists its shards.
    generate("classic", 7, tmp_path, address=LOCAL_PROCESS, batch=2, seed=1, max_plies=4,
             progress=False)
    expected = pq.read_table(tmp_path / "games").sort_by("game").column("record").to_pylist()
    assert [g.record() for g in model_module._run_games(str(tmp_path))] == expected


# --- actors and run_tasks ------------------------------------------------------------------


def test_is_actor() -> None:
    # An actor is anything with act.remote (a Ray actor handle); a plain act is not.
    class Handle:
        class act:  # noqa: N801 (a method handle's shape)
            @staticmethod
            def remote(*args: Any) -> None:
                return None

    class Plain:
        def act(self) -> None:
            return None

    assert is_actor(Handle()) and not is_actor(Plain()) and not is_actor(None) and not is_actor("greedy")


class FakeRay(types.ModuleType):
    """The part of Ray's API run_tasks uses, recording every call; results come back
    in the reverse order of submission (Ray gives them as they finish)."""

    def __init__(self, initialized: bool) -> None:
        super().__init__("ray")
        self.initialized = initialized
        self.log: list[Any] = []
        self.pending: list[int] = []
        self.results: dict[int, Any] = {}

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **kwargs: Any) -> None:
        self.log.append(("init", kwargs))

    def shutdown(self) -> None:
        self.log.append("shutdown")

    def put(self, x: Any) -> Any:
        return ("ref", x)

    def remote(self, fn: Callable[..., Any]) -> Any:
        ray = self

        class Options:
            def remote(self, *args: Any) -> int:
                values = [a[1] if isinstance(a, tuple) and a[:1] == ("ref",) else a for a in args]
                ref = len(ray.results)
                ray.results[ref] = fn(*values)
                ray.pending.append(ref)
                return ref

        class Remote:
            def options(self, **kwargs: Any) -> Options:
                ray.log.append(("options", kwargs))
                return Options()

        return Remote()

    def wait(self, refs: list[int], num_returns: int) -> tuple[list[int], list[int]]:
        assert num_returns == 1
        last = max(refs)
        return [last], [r for r in refs if r != last]

    def get(self, ref: int) -> Any:
        return self.results[ref]

    def cancel(self, ref: int) -> None:
        self.log.append(("cancel", ref))


def add(a: int, b: int, c: int) -> int:
    return 100 * a + 10 * b + c


def test_run_tasks_in_this_process() -> None:
    # fn(*shared, *batch) for each batch, in order, with its batch number.
    assert list(run_tasks(add, [1], [(2, 3), (4, 5)], address=LOCAL_PROCESS)) == [(0, 123), (1, 145)]


@pytest.mark.parametrize("address, init", [(None, {"include_dashboard": False}), ("auto", {"address": "auto"}),
                                           ("ray://h:1", {"address": "ray://h:1"})])
def test_run_tasks_on_ray(address: Optional[str], init: dict[str, Any],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    # A cluster started here is shut down after; tasks of one CPU spread over the nodes,
    # with the retries asked; results as they arrive, each with its batch number.
    ray = FakeRay(initialized=False)
    monkeypatch.setitem(sys.modules, "ray", ray)
    results = list(run_tasks(add, [1], [(2, 3), (4, 5), (6, 7)], address=address, max_retries=5))
    assert results == [(2, 167), (1, 145), (0, 123)]
    assert ray.log == [("init", init),
                       ("options", {"max_retries": 5, "num_cpus": 1.0, "scheduling_strategy": "SPREAD"}),
                       "shutdown"]
    ray = FakeRay(initialized=False)
    monkeypatch.setitem(sys.modules, "ray", ray)
    assert list(run_tasks(add, [1], [(2, 3)], address=address, num_cpus=0.5)) == [(0, 123)]
    assert ray.log[1] == ("options", {"max_retries": 3, "num_cpus": 0.5, "scheduling_strategy": "SPREAD"})


def test_run_tasks_on_a_running_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    # A cluster this process already joined is used as it is and left running; tasks
    # still waiting when the caller stops are cancelled.
    ray = FakeRay(initialized=True)
    monkeypatch.setitem(sys.modules, "ray", ray)
    tasks: Iterator[tuple[int, int]] = run_tasks(add, [1], [(2, 3), (4, 5), (6, 7)], address="auto")
    assert isinstance(tasks, types.GeneratorType)
    assert next(tasks) == (2, 167)
    tasks.close()
    assert ray.log == [("options", {"max_retries": 3, "num_cpus": 1.0, "scheduling_strategy": "SPREAD"}),
                       ("cancel", 0), ("cancel", 1)]


# --- policies ------------------------------------------------------------------------------


def test_agent_seed_by_hand() -> None:
    # Seat k's agent: the policy seed xor (k + 1) times the 64-bit golden ratio, mod 2^64.
    from junqi.distributed.play import agent_seed

    assert agent_seed(0, 0) == 0x9E3779B97F4A7C15
    assert agent_seed(1, 1) == 0x3C6EF372FE94F82B
    assert agent_seed((1 << 64) - 1, 0) == 0x61C8864680B583EA
    assert agent_seed(5, 3) == (5 ^ (0x9E3779B97F4A7C15 * 4)) % (1 << 64) == 0x78DDE6E5FD29F051


def pick_first(observation: Any, mask: Any) -> int:
    return int(np.flatnonzero(mask)[0])


class Chooser:
    def __call__(self, observation: Any, mask: Any) -> int:
        return pick_first(observation, mask)


class Actor:
    """An actor handle's shape: act.remote(observations, masks) gives the answer (the
    stand-in ray.get below hands it back as it is)."""

    def __init__(self, extra: int = 0, row: bool = False) -> None:
        self.extra = extra
        self.calls: list[tuple[Any, Any]] = []
        actor = self

        class Act:
            @staticmethod
            def remote(observations: Any, masks: Any) -> Any:
                actor.calls.append((observations, masks))
                answer = [pick_first(o, m) for o, m in zip(observations, masks)]
                out = np.array(answer + [0] * actor.extra)
                return out.reshape(1, -1) if row else out

        self.act = Act()


def test_describe_and_check_policies() -> None:
    # The manifest's names of policies; what is refused, with the agent's name.
    from junqi.distributed.play import check_policy, describe_policy

    assert describe_policy("search:3") == "search:3"
    assert describe_policy(Actor()) == "actor"
    assert describe_policy(pick_first) == f"callable:{__name__}.pick_first"
    assert describe_policy(Chooser()) == f"callable:{__name__}.Chooser"
    anonymous = types.FunctionType(pick_first.__code__, {})
    assert anonymous.__module__ is None
    anonymous.__qualname__ = ""
    assert describe_policy(anonymous) == "callable:builtins.function"
    nameless = Chooser()
    nameless.__module__ = None
    assert describe_policy(nameless) == f"callable:{__name__}.Chooser"
    assert describe_policy((1).__add__) == "callable:builtins.int.__add__"   # no __module__ at all
    for fine in ["random", "greedy", "search:3", pick_first, Chooser(), Actor()]:
        check_policy("p", fine)
    with pytest.raises(ValueError) as info:
        check_policy("me", "best")
    assert str(info.value).startswith("unknown built-in policy 'best' for 'me' (unknown agent \"best\"")
    assert str(info.value).endswith(
        "): the built-ins are 'random' and the agents ('greedy', 'search:3', ...); pass a callable "
        "(observation, mask) -> action or an actor")
    assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(ValueError, match=r"^unknown built-in policy 'search:0' for 'me' \("):
        check_policy("me", "search:0")
    with pytest.raises(TypeError) as type_info:
        check_policy("me", 3)
    assert str(type_info.value) == (
        "policy 'me' is int: expected 'random', an agent's name, a callable (observation, mask) "
        "-> action, or an actor with act.remote")


def test_seat_teams() -> None:
    # Seat indices by team: one team per seat without teams; 四国's partners together.
    from junqi.distributed.play import seat_teams

    assert seat_teams(CLASSIC) == [[0], [1]]
    assert seat_teams(junqi.RuleSet("siguo")) == [[0, 2], [1, 3]]


def test_steps_extend() -> None:
    # Every column of the other steps appended, in order.
    a, b = some_steps([1, 1]), some_steps([2])
    a.extend(b)
    assert len(a) == 3 and a.game == [1, 1, 2] and a.ply == [0, 1, 0] and a.action == [10, 11, 10]
    assert [m.argmax() for m in a.mask] == [0, 1, 0] and len(a.observation) == 3
    assert (a.seat, a.reward, a.outcome) == (["south", "north", "south"], [0.0, 0.5, 0.0], [-1.0, 0.0, -1.0])


def test_actor_plays_as_its_callable(monkeypatch: pytest.MonkeyPatch) -> None:
    # An actor is asked once per round for every game waiting for it (observations
    # [B, channels, points], masks [B, action_space]) and plays what the same callable
    # plays; an answer of the wrong length stops the run.
    from junqi.distributed.play import GameSpec, play_batch

    fake = types.ModuleType("ray")
    setattr(fake, "get", lambda x: x)
    monkeypatch.setitem(sys.modules, "ray", fake)
    specs = [GameSpec(i, ("p", "p")) for i in range(3)]
    actor = Actor()
    by_actor, steps_a = play_batch(CLASSIC, 4, specs, {"p": actor}, max_plies=3, steps=True)
    by_call, steps_c = play_batch(CLASSIC, 4, specs, {"p": pick_first}, max_plies=3, steps=True)
    assert by_actor == by_call and steps_a is not None and steps_c is not None
    assert steps_a.action == steps_c.action and steps_a.game == steps_c.game
    assert [(o.shape, o.dtype, m.shape, m.dtype) for o, m in actor.calls] == [
        ((3, 49, 60), np.float32, (3, 1188), np.int8)] * 3
    # An answer shaped [1, B] is B actions too.
    assert play_batch(CLASSIC, 4, specs, {"p": Actor(row=True)}, max_plies=3)[0] == by_call
    with pytest.raises(ValueError, match=r"^the actor answered 4 actions for 3 games$"):
        play_batch(CLASSIC, 4, specs, {"p": Actor(extra=1)}, max_plies=3)


def test_illegal_action_message() -> None:
    # The game, the ply, the seat and the action named; nothing more is played.
    from junqi.distributed.play import GameSpec, play_batch

    def second_illegal(observation: Any, mask: Any) -> int:
        return int(np.flatnonzero(mask == 0)[1])

    specs = [GameSpec(0, ("ok", "bad")), GameSpec(3, ("ok", "bad"))]
    with pytest.raises(junqi.IllegalActionError) as info:
        play_batch(CLASSIC, 2, specs, {"ok": pick_first, "bad": second_illegal})
    game = junqi.Game(CLASSIC, seed=junqi.distributed.game_seeds(2, 0).game)
    for side in CLASSIC.sides:
        game.deploy_random(side)
    game.play_id(int(np.flatnonzero(game.action_mask())[0]))
    action = int(np.flatnonzero(np.asarray(game.action_mask()) == 0)[1])
    assert str(info.value) == f"game 0, ply 1: the policy of north chose action {action}, which is not legal there"


def test_agents_deploy_their_own_setups() -> None:
    # A seat played by an engine agent deploys that agent's setup (seeded by
    # agent_seed), the other seat the seeded start's: not Game.random_start's for both.
    from junqi.distributed.play import GameSpec, agent_seed, play_batch

    games, _ = play_batch(CLASSIC, 1, [GameSpec(0, ("g", "r"))], {"g": "greedy", "r": "random"}, max_plies=1)
    seeds = junqi.distributed.game_seeds(1, 0)
    by_hand = junqi.Game(CLASSIC, seed=seeds.game)
    junqi.Agent("greedy", seed=agent_seed(seeds.policy, 0)).deploy(by_hand, CLASSIC.sides[0])
    by_hand.deploy_random(CLASSIC.sides[1])
    played_actions = json.loads(games[0].record)["actions"]
    assert played_actions[:2] == json.loads(by_hand.record())["actions"]
    assert played_actions[:2] != json.loads(junqi.Game.random_start(CLASSIC, seeds.game).record())["actions"]


def test_batch_results_by_hand() -> None:
    # Games cut at max_plies: a draw, truncated, no reason, rewards 0; their steps in game
    # then ply order, each seat's outcome, the callable's choice; the same rows whether
    # steps are kept or not, and for the random player the same as without rounds.
    from junqi.distributed.play import GameSpec, play_batch

    specs = [GameSpec(5, ("a", "b")), GameSpec(2, ("b", "a"))]
    games, steps = play_batch(CLASSIC, 1, specs, {"a": pick_first, "b": "random"}, max_plies=4, steps=True)
    assert [(g.index, g.agents, g.winners, g.reason, g.truncated, g.plies, g.rewards) for g in games] == [
        (5, ("a", "b"), [], None, True, 4, [0.0, 0.0]), (2, ("b", "a"), [], None, True, 4, [0.0, 0.0])]
    assert steps is not None
    assert (steps.game, steps.ply) == ([5, 5, 5, 5, 2, 2, 2, 2], [0, 1, 2, 3] * 2)
    assert steps.seat == ["south", "north"] * 4
    assert steps.reward == steps.outcome == [0.0] * 8
    for k, (game, seat) in enumerate(zip(steps.game, steps.seat)):
        agent = specs[0].agents if game == 5 else specs[1].agents
        if agent[0 if seat == "south" else 1] == "a":
            assert steps.action[k] == pick_first(None, steps.mask[k])
        assert steps.mask[k][steps.action[k]] == 1
    again, none = play_batch(CLASSIC, 1, specs, {"a": pick_first, "b": "random"}, max_plies=4)
    assert again == games and none is None
    for g in games:
        replay = junqi.Game.from_record(g.record)
        assert (replay.seed, replay.ply, g.game_seed) == (g.game_seed, 4, junqi.distributed.game_seeds(1, g.index).game)
        assert g.player_records == [replay.player_record(s) for s in CLASSIC.sides]
    rounds, _ = play_batch(CLASSIC, 1, specs, {"a": "random", "b": "random"}, max_plies=9, steps=True)
    alone, _ = play_batch(CLASSIC, 1, specs, {"a": "random", "b": "random"}, max_plies=9)
    assert rounds == alone and all(g.plies == 9 for g in alone)


# --- generate ------------------------------------------------------------------------------


def test_generate_refuses_bad_arguments(tmp_path: pathlib.Path) -> None:
    # Each refusal with its value, before anything is written; the bounds themselves pass.
    kw: dict[str, Any] = dict(address=LOCAL_PROCESS, progress=False, max_plies=2)
    cases: list[tuple[dict[str, Any], str]] = [(dict(games=-1), "games must be >= 0, not -1"),
                         (dict(batch=0), "batch must be >= 1, not 0"),
                         (dict(max_plies=0), "max_plies must be >= 1, not 0"),
                         (dict(seed=-1), "seed must be an unsigned 64-bit integer, not -1"),
                                               (dict(seed=1 << 64), "seed must be an unsigned 64-bit integer, not 18446744073709551616")]
    for bad, message in cases:
        args = {"games": 1, "seed": 0, **kw, **bad}
        games = args.pop("games")
        with pytest.raises(ValueError) as info:
            generate("classic", games, tmp_path / "bad", **args)
        assert str(info.value) == message
        assert not (tmp_path / "bad").exists() or os.listdir(tmp_path / "bad" / "games") == []
    with pytest.raises(ValueError, match=r"^unknown built-in policy 'best' for 'policy' \("):
        generate("classic", 1, tmp_path / "bad", "best", **kw)
    result = generate("classic", 0, tmp_path / "none", batch=1, seed=(1 << 64) - 1, **kw)
    assert (result.games, result.played, result.shards_written, result.shards_skipped) == (0, 0, [], 0)
    one = generate("classic", 2, tmp_path / "one", batch=1, seed=0, address=LOCAL_PROCESS,
                   progress=False, max_plies=1)
    assert one.played == 2 and [g["plies"] for g in pq.read_table(tmp_path / "one" / "games").to_pylist()] == [1, 1]


def test_generate_manifest_and_defaults(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # _run.json says what the run is; the progress line goes to stderr by default; a
    # fresh seed is drawn when none is given, and a re-run takes the stored one.
    result = generate("classic", 3, tmp_path, batch=2, address=LOCAL_PROCESS, max_plies=2)
    manifest = json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))
    assert manifest == {"format": "junqi-selfplay/1", "rules": "classic", "rules_json": CLASSIC.to_json(),
                        "seed": result.seed, "games": 3, "batch": 2, "steps": False, "max_plies": 2,
                        "policy": "random"}
    assert 0 <= result.seed < 1 << 63 and result.out == tmp_path
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("junqi: 3/3 games (100.0%), ") and "; done in " in last
    again = generate("classic", 3, tmp_path, batch=2, address=LOCAL_PROCESS, max_plies=2, progress=False)
    assert (again.seed, again.played, again.shards_skipped) == (result.seed, 0, 2)
    assert capsys.readouterr().err == ""
    steps = generate("classic", 1, tmp_path / "s", pick_first, seed=1, steps=True,
                     address=LOCAL_PROCESS, max_plies=2, progress=False)
    stored = json.loads((tmp_path / "s" / MANIFEST).read_text(encoding="utf-8"))
    assert (stored["steps"], stored["policy"], stored["batch"]) == (True, f"callable:{__name__}.pick_first", 100)
    assert steps.shards_written == [shard_path(tmp_path / "s", "games", 0, 1)]
    assert shard_path(tmp_path / "s", "steps", 0, 1).exists()


def test_generate_runs_its_tasks(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The batches still to play go to run_tasks with the cluster's address and the
    # retries (default: a local cluster, 3 retries); here they run in this process.
    import junqi.distributed.selfplay as selfplay_module

    calls: list[tuple[list[Any], dict[str, Any]]] = []

    def recording(fn: Any, shared: Any, batches: Any, **kw: Any) -> Any:
        calls.append((list(batches), kw))
        return run_tasks(fn, shared, batches, address=LOCAL_PROCESS)

    monkeypatch.setattr(selfplay_module, "run_tasks", recording)
    generate("classic", 5, tmp_path, batch=2, seed=1, max_plies=2, progress=False)
    generate("classic", 5, tmp_path / "b", batch=5, seed=1, max_plies=2, progress=False,
             address="auto", max_retries=0)
    assert calls == [([(0, 2), (2, 4), (4, 5)], {"address": None, "max_retries": 3}),
                     ([(0, 5)], {"address": "auto", "max_retries": 0})]


def test_generate_refuses_foreign_shards_by_name(tmp_path: pathlib.Path) -> None:
    # Shards of another run: the messages name the shard, the seeds and the batching.
    kw: dict[str, Any] = dict(address=LOCAL_PROCESS, max_plies=2, progress=False)
    a, b = tmp_path / "a", tmp_path / "b"
    generate("classic", 4, a, batch=2, seed=3, **kw)
    generate("classic", 4, b, batch=2, seed=8, **kw)
    os.replace(shard_path(b, "games", 2, 4), shard_path(a, "games", 2, 4))
    (a / MANIFEST).unlink()
    with pytest.raises(ForeignShardError) as info:
        generate("classic", 4, a, batch=2, **kw)
    assert str(info.value) == (f"{a} holds games of two run seeds (3 in games-000000000-000000001.parquet, "
                               f"8 in games-000000002-000000003.parquet) and no _run.json: refusing to add to it")
    generate("classic", 6, tmp_path / "c", batch=2, seed=1, **kw)
    os.replace(shard_path(tmp_path / "c", "games", 4, 6), shard_path(a, "games", 4, 6))
    with pytest.raises(ForeignShardError) as info:
        generate("classic", 6, a, batch=2, **kw)
    assert str(info.value) == (f"{a} holds games of two run seeds (1 in games-000000004-000000005.parquet, "
                               f"3 in games-000000000-000000001.parquet) and no _run.json: refusing to add to it")
    os.replace(shard_path(a, "games", 4, 6), shard_path(tmp_path / "c", "games", 4, 6))
    os.replace(shard_path(a, "games", 2, 4), shard_path(b, "games", 2, 4))
    with pytest.raises(ForeignShardError) as info:
        generate("classic", 4, a, batch=2, seed=5, **kw)
    assert str(info.value) == (f"{shard_path(a, 'games', 0, 2)} holds games of run seed 3, not 5: refusing "
                               f"to mix two runs in {a} (resume with seed=3, or choose another output directory)")
    with pytest.raises(ForeignShardError) as info:
        generate("classic", 4, a, batch=3, seed=3, **kw)
    assert str(info.value) == (f"{shard_path(a, 'games', 0, 2)} is not a shard of this run (4 games in "
                               f"batches of 3): refusing to mix two runs in {a}")
    generate("classic", 2, a, batch=2, seed=3, **kw)   # writes the manifest back
    # With the manifest: another run is named by check_manifest; a stray shard of the
    # same manifest's run (games 4-5, past the end) by its name.
    with pytest.raises(ValueError, match=r"holds another run \(games: 2 there, 4 now\)"):
        generate("classic", 4, a, batch=3, seed=3, **kw)
    generate("classic", 6, tmp_path / "d", batch=2, seed=3, **kw)
    os.replace(shard_path(tmp_path / "d", "games", 4, 6), shard_path(a, "games", 4, 6))
    with pytest.raises(ForeignShardError) as info:
        generate("classic", 2, a, batch=2, seed=3, **kw)
    assert str(info.value) == (f"{shard_path(a, 'games', 4, 6)} is not a shard of this run (2 games in "
                               f"batches of 2): refusing to mix two runs in {a}")
