"""The engine's command line, ``grader exercises list|variant|grade|selftest|lab``: JSON in, JSON out.

Single mode prints one JSON object; a usage error (unknown id, bad seed, unreadable answer file) prints
``{"error": {"code", "message"}}`` on stderr and exits 2. Batch mode reads JSON lines on stdin and writes one
line per non-blank input line, in order; a bad line becomes ``{"line", "status": "error", "error"}`` and the
batch goes on (exit 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from exercises import api
from exercises.batch import LineError, dumps, grade_line, parse_seed, run_batch, serve, variant_line
from exercises.capacity_lab import ALLOWED_DIMENSIONS, MAX_LENGTH
from exercises.i18n import LANGS
from exercises.selftest import format_selftest, run_selftest

USAGE_ERROR = 2
LAB_TABLE_LENGTHS = (1, 2, 4, 8, 16, 32, 64)


def _fail(error: LineError) -> int:
    """Report a usage error on stderr as JSON; the exit status for it."""
    sys.stderr.write(dumps({"error": error.to_dict()}) + "\n")
    return USAGE_ERROR


def _single_request(args: argparse.Namespace) -> tuple[str, int]:
    """The id and seed of a single-mode request, or a LineError saying what is missing."""
    if args.exercise_id is None or args.seed is None:
        raise LineError("usage", "give an exercise ID and --seed N, or --batch")
    return args.exercise_id, parse_seed(args.seed)


def _batch_input(args: argparse.Namespace) -> BinaryIO:
    """Stdin for a batch, after refusing single-mode arguments that a batch would silently ignore."""
    if args.exercise_id is not None or args.seed is not None:
        raise LineError("usage", "--batch reads ids and seeds from stdin; do not pass ID or --seed")
    return sys.stdin.buffer


def _read_answer(path: str) -> object:
    """The answer object from a file, or from stdin for ``-``."""
    try:
        if path == "-":
            content = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as answer_file:
                content = answer_file.read()
    except OSError as error:
        raise LineError("bad-answer-file", f"cannot read answer file {path!r}: {error.strerror}") from error
    try:
        return json.loads(content)
    except (ValueError, RecursionError) as error:
        raise LineError("bad-answer-file", f"answer file {path!r} is not valid JSON") from error


def _print_variant(shown: dict[str, Any], lang: str) -> None:
    """A variant for a person: header, prompt and the answer parts expected."""
    print(f"# {shown['exercise_id']}  seed {shown['seed']}  engine {shown['engine_version']}")
    print(shown["prompt"])
    print()
    for field in shown["fields"]:
        print(f"- {field['name']} ({field['kind']}): {field['label'][lang]}; {field['hint'][lang]}")


def command_list(args: argparse.Namespace) -> int:
    """``exercises list``: every exercise, as JSON or a table."""
    listed = api.list_exercises()
    if args.json:
        print(dumps(listed))
        return 0
    rows = [
        (
            e["id"],
            e["chapter"],
            "yes" if e["graded"] else "no",
            ", ".join(f["name"] for f in e["fields"]) or "-",
            e["title"][args.lang],
        )
        for e in listed
    ]
    header = ("id", "chapter", "graded", "fields", "title")
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


def _one_or_batch(
    args: argparse.Namespace,
    line: Callable[[object], dict[str, Any]],
    answer: Callable[[str, int], dict[str, Any]],
    show: Callable[[dict[str, Any]], None],
) -> int:
    """A request from the arguments, answered by ``answer(id, seed)`` and shown; or, with ``--batch``, JSON lines
    from stdin answered by ``line``. A usage error exits 2 with its JSON on stderr."""
    try:
        if args.batch:
            return run_batch(_batch_input(args), sys.stdout, line)
        exercise_id, seed = _single_request(args)
        shown = answer(exercise_id, seed)
    except LineError as error:
        return _fail(error)
    show(shown)
    return 0


def command_variant(args: argparse.Namespace) -> int:
    """``exercises variant``: one variant, or a batch of them from stdin."""

    def answer(exercise_id: str, seed: int) -> dict[str, Any]:
        return serve(lambda: api.variant(exercise_id, seed, args.lang), exercise_id)

    def show(shown: dict[str, Any]) -> None:
        if args.json:
            print(dumps(shown))
        else:
            _print_variant(shown, args.lang)

    return _one_or_batch(args, variant_line, answer, show)


def command_grade(args: argparse.Namespace) -> int:
    """``exercises grade``: grade one answer file, or a batch of answers from stdin."""

    def answer(exercise_id: str, seed: int) -> dict[str, Any]:
        if args.answer is None:
            raise LineError("usage", "give --answer FILE (or - for stdin)")
        given = _read_answer(args.answer)
        return serve(lambda: api.grade(exercise_id, seed, given, args.lang), exercise_id)

    return _one_or_batch(args, grade_line, answer, lambda result: print(dumps(result)))


def command_selftest(args: argparse.Namespace) -> int:
    """``exercises selftest``: the table; exit 1 when anything failed."""
    rows = run_selftest(args.seeds)
    print(format_selftest(rows))
    return 0 if all(row.ok for row in rows) else 1


def _print_lab(result: dict[str, Any]) -> None:
    """The lab's outcome for a person: first T below 90% per d, then accuracy at a few lengths."""
    shown = [t for t in result["ts"] if t in LAB_TABLE_LENGTHS] or result["ts"][:8]
    print("d     first T < 90%   fixed accuracy at T = " + " ".join(f"{t:>5}" for t in shown))
    for d in result["ds"]:
        below = result["first_below_90"][str(d)]
        accuracies = dict(zip(result["ts"], result["fixed_accuracy"][str(d)]))
        cells = " ".join(f"{accuracies[t]:5.2f}" for t in shown)
        print(f"{d:<5} {str(below) if below is not None else '-':<15} {' ' * 22}{cells}")
    worst = min(min(values) for values in result["attention_accuracy"].values())
    print(f"attention read-back accuracy, lowest over all d and T: {worst:.3f}")


def command_lab(args: argparse.Namespace) -> int:
    """``exercises lab``: run the capacity lab and print its result."""

    def report(fraction: float) -> None:
        sys.stderr.write(f"progress {fraction:.2f}\n")

    try:
        result = api.run_capacity_lab(
            args.d,
            args.t_max,
            trials=args.trials,
            seed=args.seed,
            t_min=args.t_min,
            progress=report if args.progress else None,
        )
    except ValueError as error:
        return _fail(LineError("bad-parameter", str(error)))
    if args.json:
        print(dumps(result))
    else:
        _print_lab(result)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every sub-command."""
    parser = argparse.ArgumentParser(prog="grader exercises", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="list the exercises")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("--lang", choices=LANGS, default="zh", help="language of titles in the table")
    listing.set_defaults(handler=command_list)
    for name, handler, help_text in (
        ("variant", command_variant, "show a variant (never its answer)"),
        ("grade", command_grade, "grade an answer"),
    ):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("exercise_id", nargs="?", metavar="ID")
        sub.add_argument("--seed", help="integer in [0, 2**63)")
        sub.add_argument("--lang", choices=LANGS, default="zh")
        sub.add_argument("--batch", action="store_true", help="read JSON lines on stdin, write one per line")
        sub.add_argument("--json", action="store_true", help="print JSON (always so for grade and --batch)")
        if name == "grade":
            sub.add_argument("--answer", metavar="FILE", help="JSON object {field: value}; - for stdin")
        sub.set_defaults(handler=handler)
    selftest = commands.add_parser("selftest", help="check every exercise against itself")
    selftest.add_argument("--seeds", type=int, default=50, metavar="K", help="check seeds 0..K")
    selftest.set_defaults(handler=command_selftest)
    lab = commands.add_parser("lab", help="run the capacity lab")
    lab.add_argument("--d", type=int, nargs="+", default=list(ALLOWED_DIMENSIONS), metavar="D")
    lab.add_argument("--t-max", type=int, default=MAX_LENGTH)
    lab.add_argument("--t-min", type=int, default=1)
    lab.add_argument("--trials", type=int, default=200)
    lab.add_argument("--seed", type=int, default=0)
    lab.add_argument("--json", action="store_true")
    lab.add_argument("--progress", action="store_true", help="report progress on stderr")
    lab.set_defaults(handler=command_lab)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status (argparse's own usage errors included) as an int."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")  # prompts are Chinese whatever the locale says
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:  # --help, or argparse's own usage message
        code = exit_request.code
        return 0 if code is None else code if isinstance(code, int) else USAGE_ERROR
    if args.command == "selftest" and args.seeds < 0:
        return _fail(LineError("usage", "--seeds must be a non-negative integer"))
    try:
        return int(args.handler(args))
    except BrokenPipeError:  # the reader went away (`| head`); stop quietly, without a traceback at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
