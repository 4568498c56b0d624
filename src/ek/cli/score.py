"""``ek score``: score a corpus of predicted tool calls against gold calls, and report it.

Prints a terminal summary (overall micro precision/recall/F1, per tool, per
error type, worst episodes, every line that could not be scored) and writes
``--json`` and ``--html`` reports. Exit status: 0 when every line was scored,
1 when some line failed (unless ``--allow-errors``) or when nothing was scored
at all (an empty corpus, every line an error: there is no figure to report,
whatever ``--allow-errors`` says), 2 for usage errors, 3 when
the run was cut short (a ``--jobs`` worker process died, a Ray block failed after its retries, an input
broke off) and no report was written.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from ek.atomicfile import writes_over
from ek.canon import CANONICALIZERS
from ek.cli import whole_number
from ek.limits import BOOTSTRAP_MAX_REPLICATES
from ek.parsing import get_format
from ek.scorer.metric import LEVELS, ORDERS

if TYPE_CHECKING:
    from ek.corpus.summary import Summary
    from ek.stats import Interval

#: How many worst episodes keep their full alignment for the HTML report.
HTML_EPISODES = 200

#: Exit status of a run that could not finish (a worker process died): there is no result to report.
ABORTED = 3

#: Resampling one episode (or none) gives the same corpus every time: no interval to speak of.
MIN_BOOTSTRAP_EPISODES = 2


def positive(text: str) -> int:
    """argparse type: an integer of at least 1."""
    return whole_number(text, 1, "1 or more")


#: ``--jobs auto``: a worker per CPU this process may use (:func:`ek.corpus.runner.usable_cpus`); with
#: ``--engine ray``, every CPU Ray has (as without ``--jobs``).
AUTO_JOBS = "auto"


def jobs_count(text: str) -> int | str:
    """argparse type of ``--jobs``: a whole number of at least 1, or ``auto`` (resolved by :func:`resolve_jobs`
    once the engine is known)."""
    if text.strip().lower() == AUTO_JOBS:
        return AUTO_JOBS
    try:
        return positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a whole number 1 or more, or 'auto', got {text!r}") from None


def resolve_jobs(jobs: int | str | None, engine: str = "local") -> int | None:
    """``--jobs`` as the engines take it: ``auto`` is :func:`~ek.corpus.runner.usable_cpus` on this machine,
    None (every CPU Ray has) with Ray; a number or None as given."""
    if jobs != AUTO_JOBS:
        return jobs  # type: ignore[return-value]
    if engine == "ray":
        return None
    from ek.corpus.runner import usable_cpus

    return usable_cpus()


def non_negative(text: str) -> int:
    """argparse type: an integer of at least 0."""
    return whole_number(text, 0, "0 or more")


def replicates(text: str) -> int:
    """argparse type of ``ek compare --bootstrap``: 1 to :data:`ek.limits.BOOTSTRAP_MAX_REPLICATES` replicates."""
    return whole_number(text, 1, f"from 1 to {BOOTSTRAP_MAX_REPLICATES}", BOOTSTRAP_MAX_REPLICATES)


def replicates_or_off(text: str) -> int:
    """argparse type of ``ek score --bootstrap``: :func:`replicates`, or 0 for no bootstrap."""
    return whole_number(text, 0, f"from 0 (off) to {BOOTSTRAP_MAX_REPLICATES}", BOOTSTRAP_MAX_REPLICATES)


def fraction(text: str) -> float:
    """argparse type: a number strictly between 0 and 1 (a confidence or significance level)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {value}")
    return value


def output_format(text: str) -> str:
    """A registered model-output format name (built-in or from an ``ek.formats`` entry point)."""
    try:
        get_format(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def run_format(args: argparse.Namespace) -> str:
    """The format of lines that name none: ``--format``, else ``bfcl`` for BFCL result files, ``json`` for
    tau-bench ones (each entry's calls are read as ``{"name", "arguments"}`` objects), else ``auto``."""
    if args.format is not None:
        return str(args.format)
    if args.tau_bench:  # each entry's calls are {"name", "arguments"} objects
        return "json"
    return "bfcl" if args.bfcl_answers or args.bfcl_questions else "auto"


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``ek score`` and ``ek compare``: how episodes are scored."""
    parser.add_argument("--grammar", metavar="SCHEMA.ek|MODULE|NAME@VERSION",
                        help="default grammar: an .ek schema, a generated module (.py path or name) or NAME@VERSION "
                             "on the search path; a line's own \"grammar\" field overrides it")
    parser.add_argument("--search-path", metavar="DIR", action="append", default=[],
                        help="a folder holding generated modules and .ek schemas for NAME@VERSION; repeat for "
                             "more (default: the current folder, plus the --grammar schema's folder)")
    parser.add_argument("--gold", metavar="GOLD.jsonl",
                        help="gold calls by id (lines with id, gold and optional grammar) for corpus lines "
                             "that hold only id and pred (ek compare: the gold and grammar of every line)")
    parser.add_argument("--bfcl-answers", metavar="POSSIBLE_ANSWER.json",
                        help="gold calls by id from a BFCL possible_answer file, or a folder of them (every "
                             "category at once), for BFCL result files (lines with id and result)")
    parser.add_argument("--bfcl-questions", metavar="QUESTIONS.json",
                        help="score each episode against the function schemas of its BFCL question (by id), "
                             "from a BFCL question file or a folder of them: types, enums and defaults from "
                             "BFCL's own data")
    parser.add_argument("--bfcl-source", metavar="DIR",
                        help="BFCL's multi-turn API source (bfcl_eval/eval_checker/multi_turn_eval/"
                             "func_source_code), read with ast for the parameter order of ground-truth calls that "
                             "pass an argument by position (default: found beside the BFCL files, else in the "
                             "installed bfcl-eval)")
    parser.add_argument("--underscore-to-dot", action="store_true",
                        help="with --bfcl-questions/--bfcl-answers: the model was shown BFCL's function names "
                             "with every '.' as '_' (math_hypot for math.hypot), as BFCL shows them to models it "
                             "marks underscore_to_dot (the function-calling APIs of OpenAI and other hosted "
                             "models); its calls are scored against the names so written, as BFCL's checker does")
    parser.add_argument("--tau-bench", action="store_true",
                        help="the inputs are tau-bench results files (a JSON list of {task_id, reward, info, traj, "
                             "trial}) or tau2-bench ones ({tasks, simulations}), told apart by their shape: each "
                             "(task, trial) is an episode, the agent's tool calls in order against the task's gold "
                             "actions, its task the task id (pass@k, pass^k); docs/tau-bench.md")
    parser.add_argument("--format", type=output_format, default=None, metavar="FORMAT",
                        help="how model outputs are written: auto (default; bfcl with --bfcl-answers or "
                             "--bfcl-questions), python, openai, anthropic, json, bfcl, hermes, llama3, mistral, "
                             "qwen3-coder, deepseek, granite, phi4, harmony, kimi-k2, glm45, hunyuan, k2-horizon, "
                             "solar-open2, kimi-k3, minimax-m2, minimax-m3, step3, dots, minicpm, gemma4, "
                             "functiongemma, plamo3, jamba, nemotron, lfm2, pangu, apertus, cohere, qwen25-coder, "
                             "olmo3, internlm2, longcat, gigachat3, "
                             "gemini, bedrock, langchain, ollama, mcp, or a registered format; a line's own "
                             "\"format\" field overrides it")
    parser.add_argument("--level", choices=LEVELS, default="call",
                        help="call: one unit per call, TP only on an exact match; arg: partial credit per argument; "
                             "name: tool selection, a unit per call, TP when it calls a gold call's tool whatever its "
                             "arguments (not compared, not validated)")
    parser.add_argument("--optimal", action="store_true",
                        help="exact optimal assignment of predicted to gold calls (default: deterministic greedy)")
    parser.add_argument("--order", choices=ORDERS, default="gold",
                        help="how the order of calls counts: any (a multiset), strict (gold list order) or gold "
                             "(default: each gold call's \"after\" constraints, free elsewhere); a call that breaks "
                             "the order is out_of_order (FP and FN)")
    parser.add_argument("--canonicalizer", choices=sorted(CANONICALIZERS), default="fold",
                        help="how strings are compared where the grammar says nothing (default: fold)")
    parser.add_argument("--no-validate", dest="validate", action="store_false",
                        help="compare values only: a value the schema rejects (an enum, a pattern, a range) is not "
                             "invalid_value, and gold is not checked against the schema, as BFCL's checker scores "
                             "(types, weights, defaults and compare policies still apply)")
    parser.add_argument("--invalid-gold", choices=("error", "warn"), default="error",
                        help="gold calls the grammar rejects (unknown tool, missing required argument, a value "
                             "the schema refuses; every $oneOf alternative must fit): error (default: the line is "
                             "an error line, not scored) or warn (scored, and counted as a warning in the report)")
    parser.add_argument("--jobs", type=jobs_count, default=None, metavar="N",
                        help="score in N processes (results are identical to one process; default 1; auto: one "
                             "per CPU this process may use, no more than the corpus has chunks of lines); with "
                             "ek score --engine ray: at most N Ray tasks at once (default and auto: every CPU Ray "
                             "has)")
    parser.add_argument("--allow-errors", action="store_true",
                        help="exit 0 even when some lines could not be scored (they are still reported)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("exit status: 0 when every line was scored, 1 when some line could not be (0 with "
                     "--allow-errors) or when nothing was scored at all (even with --allow-errors), 2 for usage "
                     "errors: a missing file, a bad option, a --grammar that does not resolve, a report path that "
                     "cannot be written, a missing extra; 3 when the run was cut short (a --jobs worker process "
                     "was killed, e.g. out of memory; a Ray block failed after its retries; a gzip or Parquet input "
                     "broke off) and no report was written; 4 when every line was scored (or --allow-errors) but a "
                     "--fail-under gate failed")
    parser.add_argument("corpus", metavar="CORPUS", nargs="+",
                        help="JSON lines, one episode each: id, pred (or output/prediction/completion), gold, "
                             "optional grammar; gzip-compressed JSON lines; Parquet (one episode per row, needs "
                             "pip install 'ek[parquet]'); several files or quoted globs are read in order, their "
                             "lines numbered through as if concatenated; '-' reads stdin")
    add_metric_arguments(parser)
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local (default: this machine, --jobs processes) or ray: read with Ray Data and score "
                             "blocks in parallel Ray tasks, same report (pip install 'ek[ray]'; docs/ray.md)")
    parser.add_argument("--address", metavar="ADDR",
                        help="with --engine ray: the Ray cluster to join (e.g. ray://head:10001 or auto); "
                             "default: start a local Ray for this run and stop it at the end")
    parser.add_argument("--json", metavar="OUT.json", help="write the machine-readable report (docs/report-json.md)")
    parser.add_argument("--html", metavar="OUT.html", help="write the self-contained HTML report")
    parser.add_argument("--episodes-out", metavar="FILE",
                        help="write one row per scored episode (id, line, category, task, weighted and unit "
                             "TP/FP/FN, F1, exact, reasons, parse error): CSV for a .csv name, else JSON lines")
    parser.add_argument("--bootstrap", type=replicates_or_off, default=0, metavar="N",
                        help="percentile bootstrap CIs of micro F1 and of episode accuracy with N replicates "
                             "(0: off)")
    # 0 or more: Python's random.Random seeds with an int's absolute value, so --seed -7 gave the very numbers of
    # --seed 7 (NumPy refuses a negative seed for the same reason)
    parser.add_argument("--seed", type=non_negative, default=0, help="seed of the bootstrap, 0 or more (default 0)")
    parser.add_argument("--confidence", type=fraction, default=0.95, help="CI level (default 0.95)")
    parser.add_argument("--worst", type=non_negative, default=10, metavar="K",
                        help="how many worst episodes to list (default 10)")
    parser.add_argument("--html-episodes", type=non_negative, default=HTML_EPISODES, metavar="N",
                        help=f"how many worst episodes keep their alignment for --html (default {HTML_EPISODES})")
    parser.add_argument("--fail-under", type=gate, action="append", default=[], metavar="[METRIC=]VALUE",
                        help="a quality gate for CI: exit status 4 when METRIC (f1, the default; precision, recall, "
                             "accuracy; pass@K or pass^K of repeated samples) is below VALUE (0 to 1; compared "
                             "exactly); repeat for more gates; a figure the run does not have fails its gate")
    parser.add_argument("--task-gold", choices=("warn", "error", "ignore"), default="warn",
                        help="samples of one task (lines with one \"task\") scored against different gold, or with "
                             "different grammars, which makes pass@k, pass^k and a bootstrap over tasks mix "
                             "questions: warn (default: every "
                             "line is scored, the tasks are named on stderr and in the reports) or error (the same, "
                             "and exit status 1, even with --allow-errors) or ignore (not compared: saves a digest "
                             "of each tasked line's own gold, a few microseconds a line)")


def gate(text: str) -> Any:
    """A ``--fail-under`` argument (:func:`ek.report.gates.parse_gate`), or argparse's usage error saying why."""
    from ek.report.gates import parse_gate

    try:
        return parse_gate(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def usage_error(command: str, message: str) -> int:
    """Say what is wrong with the command line (paths and names in ``message`` printed escaped) and return 2."""
    from ek.report.table import printable

    print(f"ek {command}: error: " + "\n".join(map(printable, message.split("\n"))), file=sys.stderr)
    return 2


def output_problem(path: str) -> str | None:
    """Why a report cannot be written to ``path`` (checked before a long run), or None when it can."""
    if os.path.isdir(path):
        return "is a folder; give a file name"
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):  # folders that do not exist yet are created
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"{folder} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK) and not os.path.exists(path):
        return f"no permission to write in {folder}"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "no permission to overwrite it"
    return None


def output_clash(outputs: list[tuple[str, str]], inputs: list[str]) -> str | None:
    """Why writing the reports would destroy an input or another report (an output that is an input file, as
    a second run over ``'out/*.jsonl'`` with ``--episodes-out out/ep.jsonl`` makes it; two reports to one file),
    or None."""
    for k, (option, out) in enumerate(outputs):
        for path in inputs:
            if writes_over(out, path):
                return f"{option} {out}: is also an input of this run ({path}); writing it would replace it"
        for other, second in outputs[k + 1:]:
            if writes_over(out, os.path.join(".", second)):  # (a report named '-' is a file so named)
                return f"{option} and {other} both write {out}: give each report its own file"
    return None


def write_report(command: str, option: str, path: str, write: Any) -> int | None:
    """Run ``write()``; exit status 2 with a message when the file cannot be written, else None."""
    try:
        write()
    except OSError as exc:
        return usage_error(command, f"cannot write {option} {path}: {exc.strerror or exc}")
    return None


def check_inputs(command: str, args: argparse.Namespace, paths: list[str]) -> int | None:
    """Exit status 2 with a message when an input file or the default grammar is unusable, else None."""
    from ek.boundedread import path_not_a_file

    if args.gold and args.bfcl_answers:
        return usage_error(command, "--gold and --bfcl-answers both supply gold calls; give one of them")
    if args.grammar and args.bfcl_questions:
        return usage_error(command, "--grammar and --bfcl-questions both choose the grammar; give one of them")
    if args.tau_bench:
        given = [option for option, value in (("--gold", args.gold), ("--bfcl-answers", args.bfcl_answers),
                                               ("--bfcl-questions", args.bfcl_questions), ("--format", args.format))
                 if value]
        if given:
            return usage_error(command, f"--tau-bench reads the gold actions and the agent's tool calls from the "
                                        f"results files themselves: {', '.join(given)} cannot apply")
    if args.underscore_to_dot and not (args.bfcl_questions or args.bfcl_answers):
        return usage_error(command, "--underscore-to-dot renames BFCL's functions: it needs --bfcl-questions or "
                                    "--bfcl-answers")
    bfcl_data = [p for p in (args.bfcl_answers, args.bfcl_questions) if p]
    for option, path in (("--gold", args.gold), ("--bfcl-answers", args.bfcl_answers),
                         ("--bfcl-questions", args.bfcl_questions)):
        if path == "-":
            return usage_error(command, f"{option} -: the gold and BFCL data are read from files; '-' (stdin) is "
                                        "for the corpus")
    for path in paths + [p for p in (args.gold, *bfcl_data) if p]:
        if path == "-" and (closed := _stdin_problem()):
            return usage_error(command, f"-: {closed}")
        if path != "-" and not os.path.exists(path):  # pipes (<(zcat ...), /dev/stdin) are fine
            return usage_error(command, f"no such file: {path}")
        if os.path.isdir(path) and path not in bfcl_data:
            return usage_error(command, f"{path}: is a folder, not a file")
        # what ek cannot read at all (a socket); a named pipe is read as cat reads it (guarantees.md)
        if path != "-" and (kind := path_not_a_file(path, streams=True)):
            return usage_error(command, f"{path}: {kind}")
    for option, path in (("--bfcl-answers", args.bfcl_answers), ("--bfcl-questions", args.bfcl_questions)):
        if path and not (os.path.isfile(path) or os.path.isdir(path)):  # signatures are looked for beside them
            return usage_error(command, f"{option} {path}: must be a regular file or a folder, not a pipe")
    outputs = [(f"--{option.replace('_', '-')}", out) for option in ("json", "html", "episodes_out")
               if (out := getattr(args, option, None))]
    for option, out in outputs:
        problem = output_problem(out)
        if problem:
            return usage_error(command, f"{option} {out}: {problem}")
    inputs = [*paths, *(p for p in (args.gold, *bfcl_data, args.grammar) if p)]
    clash = output_clash(outputs, inputs)
    if clash:
        return usage_error(command, clash)
    for folder in args.search_path:
        if not os.path.isdir(folder):
            return usage_error(command, f"--search-path {folder}: not a folder")
    if args.grammar:
        from ek.corpus.grammars import GrammarError, load_grammar

        try:
            load_grammar(args.grammar, args.search_path)
        except GrammarError as exc:
            return usage_error(command, f"--grammar: {exc}")
    return None


def read_run_inputs(command: str, options: Any) -> Any:
    """The gold and BFCL functions of the run (:func:`ek.corpus.runner.read_inputs`), read once, before any
    line is scored; exit status 2 with a message when ``--bfcl-source`` is not BFCL's API source or a BFCL
    file is not in BFCL's format."""
    from ek.bfcl import BfclDataError
    from ek.bfcl.signatures import SignatureError, read_signatures
    from ek.corpus.runner import read_inputs

    signatures = None
    if options.bfcl_source:  # checked even when no answer needs it: the user named it
        try:
            signatures = read_signatures(options.bfcl_source)
        except SignatureError as exc:
            return usage_error(command, f"--bfcl-source: {exc}")
    try:
        questions = options.read_bfcl_questions()
    except BfclDataError as exc:
        return usage_error(command, f"--bfcl-questions: {exc}")
    try:
        return read_inputs(options, questions, signatures)
    except BfclDataError as exc:  # the questions are read: the answers are what is not BFCL's format
        return usage_error(command, f"--bfcl-answers: {exc}")


def run_options(args: argparse.Namespace, **keep: Any) -> Any:
    from ek.corpus.runner import RunOptions

    return RunOptions(level=args.level, canonicalizer=args.canonicalizer, optimal=args.optimal,
                      order=args.order, format=run_format(args), grammar=args.grammar, search_path=tuple(args.search_path), gold_file=args.gold,
                      invalid_gold=args.invalid_gold, validate=args.validate,
                      bfcl_answers=args.bfcl_answers, bfcl_questions=args.bfcl_questions,
                      bfcl_source=args.bfcl_source, underscore_to_dot=args.underscore_to_dot,
                      tau_bench=args.tau_bench, **keep)


def aborted(command: str, error: Exception) -> int:
    """Say why a run could not finish (a worker process died) and return :data:`ABORTED`; what followed
    from it (the error's notes: a local Ray that did not stop either) on the next lines."""
    from ek.report.table import printable

    print(f"ek {command}: error: {printable(str(error))}", *map(printable, getattr(error, "__notes__", ())), sep="\n",
          file=sys.stderr)
    return ABORTED


def exit_past_ray(code: int) -> NoReturn:
    """End the process now with ``code``, its output flushed, after a stall of the local Ray ``ek score``
    started: Ray's own threads still wait on its control service (GCS), which a normal exit waits for too,
    until Ray ends the process itself a minute later with status 1 (docs/ray.md: "A Ray that stops
    answering"). Nothing is left to write: the run wrote no report and its files are written atomically."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def score_file(path: str, options: Any, jobs: int, export: Any = None, inputs: Any = None) -> Any:
    """Run the scorer on one file with a progress bar when stderr is a terminal (``export`` and ``inputs``:
    see :func:`ek.corpus.runner.run`).

    Raises :class:`ek.corpus.runner.WorkerDiedError` when a worker process dies.
    """
    from ek.corpus.runner import run
    from ek.corpus.sources import expand, progress_size
    from ek.report.progress import ProgressBar

    # a tau-bench file's entries are re-written as lines: their bytes do not add up to the file's size
    bar = ProgressBar.for_terminal(None if options.tau_bench else progress_size(expand(path)))
    try:
        return run(path, options, jobs=jobs or 1, progress=bar, export=export, inputs=inputs)
    finally:
        if bar is not None:
            bar.close()


def score_with_export(path: str, options: Any, jobs: int, out: str | None, inputs: Any = None) -> Any:
    """:func:`score_file`, writing ``--episodes-out`` as the run goes (the file appears only if the run ends)."""
    if not out:
        return score_file(path, options, jobs, inputs=inputs)
    from ek.atomicfile import open_text_atomic
    from ek.report.episodes import EpisodeWriter, export_format

    with open_text_atomic(out, errors="backslashreplace") as handle:
        writer = EpisodeWriter(handle, export_format(out))
        return score_file(path, options, jobs, export=writer.write, inputs=inputs)


def _stdin_problem() -> str | None:
    """Why standard input cannot be read as the corpus ``-`` (the process was started with it closed), or None."""
    from ek.boundedread import stdin_stream

    try:
        stdin_stream()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def corpus_paths(args: argparse.Namespace) -> list[str] | int:
    """The input files (globs expanded), or exit status 2 with a message when they cannot be used."""
    from ek.corpus.sources import SourceError, expand, input_problem

    try:
        paths = expand(args.corpus)
    except SourceError as exc:
        return usage_error("score", str(exc))
    if "-" in paths and len(paths) > 1:
        return usage_error("score", "'-' (stdin) must be the only corpus")
    if args.engine == "ray" and "-" in paths:
        return usage_error("score", "--engine ray reads files, not stdin ('-'): give the corpus files")
    if args.address and args.engine != "ray":
        return usage_error("score", "--address names a Ray cluster: give it with --engine ray")
    failed = check_inputs("score", args, paths)
    if failed is not None:
        return failed
    for path in paths:
        problem = input_problem(path)
        if problem:
            return usage_error("score", f"{path}: {problem}")
    return paths


def score_on_ray(paths: list[str], options: Any, args: argparse.Namespace, export: Any = None,
                 inputs: Any = None) -> Any:
    """Score on Ray (``--address``, else a local Ray started and stopped here), with a progress bar of blocks."""
    from ek.corpus.distributed import ray_session, score_files
    from ek.corpus.sources import progress_size
    from ek.report.progress import ProgressBar

    bar = ProgressBar.for_terminal(None if options.tau_bench else progress_size(paths))
    try:
        with ray_session(args.address):
            return score_files(paths, options, workers=resolve_jobs(args.jobs, "ray"), export=export, inputs=inputs,
                               progress=None if bar is None else lambda size, lines, blocks: bar(size, lines, blocks))
    finally:
        if bar is not None:
            bar.close()


def score_corpus(paths: list[str], options: Any, args: argparse.Namespace, inputs: Any = None) -> Any:
    """Score with the engine asked for, writing ``--episodes-out`` as the run goes (the file appears only if
    the run ends). ``inputs``: the gold and functions, already read (:func:`read_run_inputs`)."""
    if args.engine != "ray":
        return score_with_export(paths, options, resolve_jobs(args.jobs), args.episodes_out, inputs)
    if not args.episodes_out:
        return score_on_ray(paths, options, args, inputs=inputs)
    from ek.atomicfile import open_text_atomic
    from ek.report.episodes import EpisodeWriter, export_format

    with open_text_atomic(args.episodes_out, errors="backslashreplace") as handle:
        writer = EpisodeWriter(handle, export_format(args.episodes_out))
        return score_on_ray(paths, options, args, export=writer.write, inputs=inputs)


def note_underscored_names(report: dict[str, Any], options: Any) -> None:
    """Say on stderr when a BFCL run's predicted tool names are its functions' names with ``.`` written ``_``
    and ``--underscore-to-dot`` was not given: the scores then count every such call as a wrong tool.
    ``report``: the run's JSON report (its per-tool unit counts)."""
    if not (options.bfcl_questions or options.bfcl_answers) or options.underscore_to_dot:
        return
    from ek.corpus.summary import underscored_names

    names = underscored_names({row["tool"]: row["units"] for row in report["per_tool"]})
    if names:
        shown, gold = next(iter(names.items()))
        print(f"ek score: note: {len(names)} predicted tool name(s) are BFCL function names with '.' written "
              f"'_' (e.g. {shown} for {gold}), each counted as a wrong tool; if the model was shown the names "
              f"that way (BFCL's underscore_to_dot: OpenAI-style function-calling APIs), score again with "
              f"--underscore-to-dot", file=sys.stderr)


#: Tasks of different gold named on stderr (the table lists the report's first ten).
MIXED_GOLD_NAMED = 3


def note_mixed_gold(report: dict[str, Any], options: Any) -> tuple[int, int]:
    """Say on stderr which tasks have samples scored against different gold, and apart from them which have samples
    scored with different grammars (the first :data:`MIXED_GOLD_NAMED` of each, with a line of either gold or
    grammar, and how many more), as a warning, or an error with ``--task-gold error``; how many such tasks the run
    has, ``(of different gold, of different grammars)`` ((0, 0): none, nothing said). Tasks named both as an
    integer and as a string are a warning whatever ``--task-gold`` says (:data:`SPLIT_TASKS_WARNING`)."""
    from ek.report.table import (
        MIXED_GOLD_WARNING,
        MIXED_GRAMMAR_WARNING,
        SPLIT_TASKS_WARNING,
        different_gold,
        different_grammar,
        split_tasks,
    )

    rep = report.get("repeats") or {}
    level = "error" if options.task_gold == "error" else "warning"
    files = len(report["corpus"]["files"])
    gold: int = rep.get("tasks_with_different_gold") or 0  # (None: not checked, --task-gold ignore)
    if gold:
        named = "; ".join(different_gold(rep, files, MIXED_GOLD_NAMED))
        print(f"ek score: {level}: {MIXED_GOLD_WARNING.format(gold)}: {named}. Give each task's samples one gold "
              "(the same \"gold\", or one --gold entry by id), or name each question its own task", file=sys.stderr)
    if rep.get("tasks_split_by_type"):
        print(f"ek score: warning: {SPLIT_TASKS_WARNING.format(rep['tasks_split_by_type'])}: "
              f"{split_tasks(rep, MIXED_GOLD_NAMED)}", file=sys.stderr)
    grammar: int = rep.get("tasks_with_different_grammar") or 0
    if grammar:
        named = "; ".join(different_grammar(rep, files, MIXED_GOLD_NAMED))
        print(f"ek score: {level}: {MIXED_GRAMMAR_WARNING.format(grammar)}: {named}. Score each task's samples with "
              "one grammar (the same \"grammar\" on its lines, or none and one --grammar), or name each question "
              "its own task", file=sys.stderr)
    return gold, grammar


def ray_errors(engine: str) -> tuple[tuple[type[Exception], ...], tuple[type[Exception], ...]]:
    """The Ray engine's errors a run stops on: (stalls, any other), each a tuple for an ``except`` clause.

    Empty for the local engine, which raises neither: an ``except ()`` catches nothing, and the Ray engine's
    module (its imports, ~3 ms) is not loaded by a run that does not use it.
    """
    if engine != "ray":
        return (), ()
    from ek.corpus.distributed import RayEngineError, RayStallError

    return (RayStallError,), (RayEngineError,)


def run_intervals(summary: Summary, replicates: int, seed: int,
                  confidence: float) -> tuple[Interval | None, Interval | None, dict[str, Any] | None]:
    """The bootstrap intervals of a run's micro F1 and episode accuracy, and what they resampled
    (``{"unit": "episode" | "task", "units": N}``); ``(None, None, None)``, with a note on stderr, when there are
    fewer than two units to draw from.

    Episodes are the units, unless some task has two samples or more: then each task is drawn whole, its
    samples together (a cluster bootstrap, :meth:`ek.corpus.summary.Summary.bootstrap_units`), and each episode
    that names no task is drawn on its own.
    """
    from ek.stats import bootstrap_f1, bootstrap_mean, bootstrap_ratio

    clustered = summary.bootstrap_units()
    unit, units = ("episode", summary.episodes) if clustered is None else ("task", len(clustered[0]))
    if units < MIN_BOOTSTRAP_EPISODES:
        print(f"ek score: note: no confidence interval: a bootstrap needs at least {MIN_BOOTSTRAP_EPISODES} "
              f"{'scored episodes' if unit == 'episode' else 'tasks (or episodes naming none)'}, got {units}",
              file=sys.stderr)
        return None, None, None
    settings = {"replicates": replicates, "seed": seed, "confidence": confidence}
    if clustered is None:
        interval = bootstrap_f1(*summary.rows(), **settings)
        accuracy_interval = bootstrap_mean(summary.exact_rows, **settings)
    else:
        tp, fp, fn, exact, episodes = clustered
        interval = bootstrap_f1(tp, fp, fn, **settings)
        accuracy_interval = bootstrap_ratio(exact, episodes, **settings)
    return interval, accuracy_interval, {"unit": unit, "units": units}


def run(args: argparse.Namespace) -> int:
    paths = corpus_paths(args)
    if isinstance(paths, int):
        return paths
    from ek.report.jsonreport import build_report, write_json
    from ek.report.table import printable, render_report

    keep_details = args.html_episodes if args.html else 0
    options = run_options(args, keep_worst=args.worst, keep_details=keep_details,
                          keep_export=bool(args.episodes_out), task_gold=args.task_gold)
    inputs = read_run_inputs("score", options)
    if isinstance(inputs, int):
        return inputs
    from ek.corpus.runner import WorkerDiedError
    from ek.corpus.sources import SourceError

    stall_errors, engine_errors = ray_errors(args.engine)
    try:
        result = score_corpus(paths, options, args, inputs)
    except stall_errors as exc:  # a run that could not finish: exit status 3
        code = aborted("score", exc)
        if args.address is None:
            exit_past_ray(code)
        return code
    except (WorkerDiedError, SourceError) as exc:  # a run that could not finish: exit status 3
        return aborted("score", exc)
    except engine_errors as exc:
        return usage_error("score", str(exc))
    except OSError as exc:
        if not args.episodes_out:
            raise
        return usage_error("score", f"cannot write --episodes-out {args.episodes_out}: {exc.strerror or exc}")
    interval = accuracy_interval = resampled = None
    if args.bootstrap:
        interval, accuracy_interval, resampled = run_intervals(result.summary, args.bootstrap, args.seed,
                                                               args.confidence)
    report = build_report(result, options, interval=interval, worst=args.worst, accuracy_interval=accuracy_interval,
                          resampled=resampled)
    report["options"]["engine"] = args.engine
    gates = None
    if args.fail_under:
        from ek.report.gates import check_gates, failed_summary, render_gates

        gates = check_gates(report, args.fail_under)
        report["gates"] = [g.to_dict() for g in gates]
    print(render_report(report))
    if gates is not None:
        print("\n" + render_gates(gates))
    note_underscored_names(report, options)
    mixed_gold, mixed_grammar = note_mixed_gold(report, options)
    if args.json:
        failed = write_report("score", "--json", args.json, lambda: write_json(report, args.json))
        if failed is not None:
            return failed
        print(f"\nJSON report: {printable(args.json)}")
    if args.episodes_out:
        print(f"Episodes: {printable(args.episodes_out)}")
    if args.html:
        from ek.report.html import write_html

        failed = write_report("score", "--html", args.html,
                              lambda: write_html(report, result.summary.worst(keep_details), args.html))
        if failed is not None:
            return failed
        print(f"HTML report: {printable(args.html)}")
    if result.summary.episodes == 0:  # not even --allow-errors makes "no result" a success
        c = result.counts
        print(f"\nek score: error: nothing was scored ({c.read} lines read: {result.summary.error_count} error "
              f"lines, {c.blank} blank); there are no figures, so the exit status is 1", file=sys.stderr)
        return 1
    failures = result.summary.error_count + len(result.gold_errors)
    if failures and not args.allow_errors:
        print(f"\n{failures} line(s) could not be scored; exit status 1 (use --allow-errors to accept that)",
              file=sys.stderr)
        return 1
    if (mixed_gold or mixed_grammar) and options.task_gold == "error":  # a data error of the tasks, not of lines
        found = [f"{mixed_gold} task(s) have samples scored against different gold" if mixed_gold else "",
                 f"{mixed_grammar} task(s) have samples scored with different grammars" if mixed_grammar else ""]
        print(f"\n{' and '.join(f for f in found if f)}; exit status 1 (--task-gold error)", file=sys.stderr)
        return 1
    if gates is not None and not all(g.passed for g in gates):
        print(f"\nek score: below --fail-under: {failed_summary(gates)}; exit status 4", file=sys.stderr)
        return 4
    return 0
