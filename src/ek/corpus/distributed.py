"""Scoring a corpus on Ray: Ray Data reads it, Ray tasks score blocks of lines, the driver merges exactly.

``ek score CORPUS... --engine ray`` and :func:`score_dataset` (a ``ray.data.Dataset`` of episodes) give the
same :class:`ek.corpus.runner.RunResult` the one-process engine gives on the same lines, so the same report:

* Reading: a Ray Data datasource with one read task per input file (JSON lines, gzip, Parquet, all opened
  by :mod:`ek.corpus.sources`, the one place that opens inputs), run on the driver's node, where the files
  are. Every physical line becomes a row ``(file, line, raw)``, blank ones too, so they are counted.
* Scoring: ``map_batches`` over blocks of rows; each task scores its block with the corpus runner's own
  per-line function (:func:`ek.corpus.runner.score_lines`), lines numbered from 1 within the block, and
  returns the block's :class:`ek.corpus.summary.Summary`. Blocks come back in input order
  (``preserve_order``); the driver shifts each one to its place in the run, checks the block continues
  the line numbering of its file exactly, and merges it: exact fractions, so the totals are exact sums.
* Grammars: a worker resolves ``NAME@VERSION`` and ``--grammar`` by asking one small actor running in the
  driver's folder on the driver's node (:class:`_GrammarDesk`), which loads them the way the local engine
  does and sends the checked grammar back by value. Nothing has to be copied to the workers.
* Failures: a task whose worker dies is retried (:data:`TASK_RETRIES` times); then the run stops with
  :class:`ek.corpus.runner.WorkerDiedError` and no report, never a report missing lines.
* Stalls: Ray waits without a deadline on some calls to its control service (GCS), and a run waits on Ray
  for every block; each of these waits is bounded (:func:`_bounded`, :func:`_within`), so a Ray that stops
  answering stops the run with :class:`RayStallError` naming the step that stalled, never a hang.

ek must be installed on every node of a cluster (``pip install 'ek[ray]'``); see ``docs/ray.md``.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from functools import lru_cache
from typing import Any, Self, TypeVar

import attrs

from ek.corpus.grammars import GrammarError, MetricCache, load_grammar
from ek.corpus.reading import GoldEntry, LineCounts
from ek.corpus.runner import (
    ATTACH,
    KeptRaw,
    RunInputs,
    RunOptions,
    RunResult,
    WorkerDiedError,
    explain_kept,
    read_inputs,
    score_lines,
    usable_cpus,
)
from ek.corpus.sources import (
    PARQUET_COLUMNS,
    FileSpan,
    SourceError,
    arrow_lines,
    expand,
    file_lines,
    numbered,
    run_label,
)
from ek.corpus.summary import Summary
from ek.extras import import_failure
from ek.limits import CHUNK_LINES, RAY_BLOCK_SECONDS, RAY_STEP_SECONDS

#: What to install when Ray is missing.
RAY_HINT = "the Ray engine needs Ray: pip install 'ek[ray]'"

#: How often Ray runs a scoring task again after its worker died, before the run stops with an error.
TASK_RETRIES = 3

#: Rows per block a read task yields (a block is scored as one task unless ``block_lines`` says otherwise).
READ_BLOCK_ROWS = CHUNK_LINES

#: CPUs a read task reserves: reading is light beside scoring, so it must not hold back a scoring task.
READ_CPUS = 0.25

#: Object store of a Ray this module starts itself: enough for blocks in flight, small beside the machine.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024

#: Scoring state (metric cache, gold) kept per worker process, for this many runs (the newest ones): a
#: worker of a long-lived cluster must not keep the compiled grammars of every run it ever served.
_RUNS_KEPT = 2


class RayEngineError(RuntimeError):
    """The Ray engine cannot run: Ray is not installed, the cluster cannot be reached, or blocks came back
    in an order that would misnumber lines (a bug: the run stops rather than report wrong line numbers)."""


class RayStallError(RayEngineError):
    """Ray did not finish a step of the run within its limit (:data:`ek.limits.RAY_STEP_SECONDS` for a
    control step, :data:`ek.limits.RAY_BLOCK_SECONDS` for the next scored block): the run was stopped rather
    than wait without end. ``step`` says which step stalled, ``seconds`` how long it was waited for."""

    def __init__(self, step: str, seconds: float, hint: str) -> None:
        super().__init__(f"Ray did not finish {step} within {seconds:g} s; the run was stopped and no report "
                         f"was written ({hint})")
        self.step = step
        self.seconds = seconds


_T = TypeVar("_T")

#: What a stalled control step most likely means, said in its error.
_GCS_HINT = ("Ray's control service (GCS) did not answer; the limit is ek.limits.RAY_STEP_SECONDS, "
             "the step_seconds argument in Python")


def _bounded(step: str, seconds: float, call: Callable[[], _T], *,
             late: Callable[[_T], object] | None = None) -> _T:
    """``call()``, waited for at most ``seconds``, or :class:`RayStallError` naming ``step``.

    Ray makes some calls to its control service (GCS) with no deadline, e.g. the key-value put that
    exports an actor class: a lost request or reply blocks its caller for ever, inside Ray's C++ code
    where nothing can interrupt it. So the call runs in a helper thread and the caller waits for it with a
    deadline; past it the helper is abandoned (a daemon thread: it cannot keep the process alive), and if
    its call still finishes later, ``late`` gets the result (an actor created after its run gave up on it
    is killed). An exception of ``call`` is raised here, as if it had been called directly.
    """
    done = threading.Event()
    lock = threading.Lock()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting caller, which raises it
            box["error"] = exc
        with lock:
            done.set()
            abandoned = box.get("abandoned", False)
        if abandoned and late is not None and "value" in box:
            try:
                late(box["value"])
            except Exception:  # best effort: the run has already failed with the stall
                pass

    threading.Thread(target=run, name=f"ek-ray: {step}", daemon=True).start()
    done.wait(seconds)
    with lock:
        if not done.is_set():
            box["abandoned"] = True
            raise RayStallError(step, seconds, _GCS_HINT)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _within(rows: Any, seconds: float, step: Callable[[], str]) -> Iterator[Any]:
    """The items of the iterable ``rows``, each waited for at most ``seconds``, else :class:`RayStallError`
    naming ``step()``.

    The blocks of a run come from Ray Data's iterator, which waits for ever on a task that never finishes;
    it is iterated in a helper thread that hands the items over one by one, so the wait here has a deadline.
    When the caller stops (an error, a stall, the end), the helper stops too and closes Ray Data's iterator,
    which stops the dataset's execution, unless it is itself stuck in Ray (then it is abandoned).
    """
    handed: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def offer(kind: str, item: Any) -> bool:
        """Hand ``item`` over, unless the caller has stopped taking them."""
        while not stop.is_set():
            try:
                handed.put((kind, item), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def pump() -> None:
        iterator = iter(rows)
        try:
            for item in iterator:
                if not offer("item", item):
                    break
            else:
                offer("end", None)
        except BaseException as exc:  # handed to the caller, which raises it
            offer("error", exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    threading.Thread(target=pump, name="ek-ray: scored blocks", daemon=True).start()
    try:
        while True:
            try:
                kind, item = handed.get(timeout=seconds)
            except queue.Empty:
                raise RayStallError(step(), seconds, "no block came back from Ray's tasks; the limit is "
                                    "ek.limits.RAY_BLOCK_SECONDS, the block_seconds argument in Python") from None
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()


def require_ray() -> Any:
    """The ``ray`` module with Ray Data, or :class:`RayEngineError` saying what to install."""
    try:
        import ray  # optional dependency: only the Ray engine needs it
        import ray.data
    except ImportError as exc:
        raise RayEngineError(import_failure(exc, "ray", RAY_HINT)) from None
    return ray


# --------------------------------------------------------------------------- grammars, resolved by the driver


class _GrammarDesk:
    """Resolves grammar references for the workers, in the driver's folder with the driver's search path."""

    def __init__(self, cwd: str, search_path: tuple[str, ...]) -> None:
        os.chdir(cwd)  # relative schema paths and the default search path "." mean what they mean to the user
        self.search_path = search_path

    def grammar(self, spec: str) -> Any:
        """The grammar ``spec`` names, or the :class:`GrammarError` saying why not (returned, not raised)."""
        try:
            return load_grammar(spec, self.search_path)
        except GrammarError as exc:
            return exc


@attrs.frozen
class _DeskLoader:
    """A :attr:`MetricCache.loader` that asks the :class:`_GrammarDesk` (once per reference per worker)."""

    desk: Any

    def __call__(self, spec: str, search_path: Sequence[str]) -> Any:
        ray = require_ray()
        found = ray.get(self.desk.grammar.remote(spec))
        if isinstance(found, GrammarError):
            raise found
        return found


# --------------------------------------------------------------------------- the plan every task gets


@attrs.frozen
class _Plan:
    """What a scoring task needs: the run's options and references to what the driver loaded."""

    run_id: str
    options: RunOptions
    desk: Any
    gold: Any  # an ObjectRef of the gold by id, or None
    functions: Any  # an ObjectRef of the BFCL functions by id, or None


_STATE: OrderedDict[str, tuple[MetricCache, Mapping[Any, GoldEntry] | None]] = OrderedDict()


def _state(plan: _Plan) -> tuple[MetricCache, Mapping[Any, GoldEntry] | None]:
    """The metric cache and gold of a run in this worker process, built on its first block."""
    found = _STATE.get(plan.run_id)
    if found is None:
        ray = require_ray()
        gold = ray.get(plan.gold) if plan.gold is not None else None
        functions = ray.get(plan.functions) if plan.functions is not None else None
        cache = plan.options.metric_cache(functions)
        cache.loader = _DeskLoader(plan.desk)
        found = _STATE[plan.run_id] = (cache, gold)
        while len(_STATE) > _RUNS_KEPT:
            _STATE.popitem(last=False)
    return found


@attrs.frozen
class _Block:
    """A scored block: its summary (lines numbered from 1), its lines read and blank, and the runs of
    consecutive lines of each file it holds, ``(file, first line, lines)`` (first line 0: dataset rows,
    which have no number of their own)."""

    summary: Summary
    read: int
    blank: int
    files: tuple[tuple[int, int, int], ...]
    size: int
    #: the raw lines of the episodes the block keeps among its worst, ``(line, raw)``, which the driver
    #: scores again to explain those of the run's worst (the block sends no explanation)
    kept_raw: tuple[tuple[int, bytes], ...] = ()


def _runs(files: list[int], lines: list[int]) -> tuple[tuple[int, int, int], ...]:
    """``(file, first line, count)`` of each stretch of consecutive lines of one file; a gap or a step back
    starts a new stretch (the driver then refuses it)."""
    out: list[list[int]] = []
    for f, n in zip(files, lines):
        if out and out[-1][0] == f and out[-1][1] + out[-1][2] == n:
            out[-1][2] += 1
        else:
            out.append([f, n, 1])
    return tuple((f, n, c) for f, n, c in out)


def _score_block(plan: _Plan, raws: list[bytes], files: tuple[tuple[int, int, int], ...]) -> dict[str, list[bytes]]:
    """A block's summary with its worst episodes ranked but not explained, and their raw lines: a block of
    :data:`READ_BLOCK_ROWS` lines keeps as many worst as the run shows details for (``--html-episodes``), and
    explaining them (the alignments each block built) cost more than scoring the block; the driver explains
    the run's worst once (:func:`ek.corpus.runner.explain_kept`), as a ``--jobs`` run does."""
    cache, gold = _state(plan)
    counts = LineCounts()
    lines = list(numbered(raws, counts))
    summary = score_lines(plan.options, cache, lines, gold, details=False)
    summary.drop_explanations()
    kept = summary.kept_lines() if summary.keep_details else set()
    block = _Block(summary, counts.read, counts.blank, files, sum(len(r) for r in raws),
                   tuple((line, raw) for line, raw in lines if line in kept))
    return {"block": [pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL)]}


def _score_lines_batch(batch: Any, plan: _Plan) -> dict[str, list[bytes]]:
    """``map_batches`` over the rows the datasource read: ``file``, ``line``, ``raw``."""
    files = batch.column("file").to_pylist()
    lines = batch.column("line").to_pylist()
    return _score_block(plan, batch.column("raw").to_pylist(), _runs(files, lines))


def _score_rows_batch(batch: Any, plan: _Plan) -> dict[str, list[bytes]]:
    """``map_batches`` over a dataset of episodes (columns as in a JSON lines corpus): each row is made the
    JSON line the reader would have read, so it is checked and scored exactly like one."""
    raws = arrow_lines(batch.select([c for c in PARQUET_COLUMNS if c in batch.column_names]))
    return _score_block(plan, raws, ((0, 0, len(raws)),) if raws else ())


# --------------------------------------------------------------------------- reading with Ray Data


def _read_file(index: int, path: str, tau_bench: bool = False) -> Iterator[Any]:
    """The rows of one input file, ``READ_BLOCK_ROWS`` at a time: every physical line with its number
    (``tau_bench``: every entry of a tau-bench results file, :func:`ek.corpus.sources.physical_lines`)."""
    import pyarrow as pa  # Ray Data's own dependency

    numbers: list[int] = []
    raws: list[bytes] = []
    for number, raw in enumerate(file_lines(path, tau_bench=tau_bench), 1):
        numbers.append(number)
        raws.append(raw)
        if len(raws) >= READ_BLOCK_ROWS:
            yield _table(pa, index, numbers, raws)
            numbers, raws = [], []
    if raws:
        yield _table(pa, index, numbers, raws)


def _table(pa: Any, index: int, numbers: list[int], raws: list[bytes]) -> Any:
    return pa.table({"file": pa.array([index] * len(raws), pa.int32()), "line": pa.array(numbers, pa.int64()),
                     "raw": pa.array(raws, pa.binary())})


@lru_cache(maxsize=1)
def _datasource_class() -> type:
    """The Ray Data datasource of corpus files (a class made on first use: Ray is an optional dependency)."""
    ray = require_ray()
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    class CorpusDatasource(Datasource):  # type: ignore[misc]
        """One read task per input file, in the order given (so blocks come back in line order)."""

        def __init__(self, paths: Sequence[str], tau_bench: bool = False) -> None:
            super().__init__()
            self.paths = list(paths)
            self.tau_bench = tau_bench

        @property
        def supports_distributed_reads(self) -> bool:
            """Read tasks run on the driver's node, where the files are (workers may not see them)."""
            return False

        def estimate_inmemory_data_size(self) -> int | None:
            return sum(_size(p) for p in self.paths)

        def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                           data_context: Any = None) -> list[Any]:
            tasks = []
            for index, path in enumerate(self.paths):
                metadata = _metadata(BlockMetadata, size_bytes=_size(path), input_files=[path])
                tasks.append(ReadTask(lambda i=index, p=path, t=self.tau_bench: _read_file(i, p, t), metadata))
            return tasks

    del ray
    return CorpusDatasource


def _metadata(cls: Any, **known: Any) -> Any:
    """A ``BlockMetadata`` with the fields this Ray version has (their set changed across 2.x)."""
    fields = set(getattr(cls, "__dataclass_fields__", {})) or {"num_rows", "size_bytes", "schema", "input_files",
                                                              "exec_stats"}
    values = {"num_rows": None, "size_bytes": None, "schema": None, "input_files": None, "exec_stats": None,
              **known}
    return cls(**{k: v for k, v in values.items() if k in fields})


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


# --------------------------------------------------------------------------- running on Ray


@attrs.define
class _Merger:
    """Merges blocks in the order they come back, numbering their lines through the run, checking that
    every block continues its file exactly where the previous one stopped."""

    total: Summary
    counts: LineCounts
    file_lines: list[int]
    blocks: int = 0
    size: int = 0
    _file: int = 0
    #: the raw lines of the run's worst so far, to explain them at the end
    kept: KeptRaw = attrs.Factory(KeptRaw)

    def add(self, block: _Block) -> None:
        for index, first, count in block.files:  # first 0: rows of a dataset, numbered by their place
            if index < self._file or (first and first != self.file_lines[index] + 1):
                raise RayEngineError(f"a block of file {index} starting at line {first} came back out of order "
                                     f"(expected line {self.file_lines[index] + 1}); the run was stopped "
                                     "rather than misnumber lines: please report this")
            self._file = index
            self.file_lines[index] += count
        offset = self.counts.read
        block.summary.shift_lines(offset)
        self.total.merge(block.summary)
        if self.total.keep_details:
            self.kept.note(self.total, block.summary, [(line + offset, raw) for line, raw in block.kept_raw])
        self.counts.read += block.read
        self.counts.blank += block.blank
        self.blocks += 1
        self.size += block.size

    def waiting_for(self) -> str:
        """The step a run waits for next, as a stall names it."""
        return f"scoring block {self.blocks + 1} (after line {self.counts.read})"

    def spans(self, paths: Sequence[str]) -> tuple[FileSpan, ...]:
        out, first = [], 1
        for path, lines in zip(paths, self.file_lines):
            out.append(FileSpan(path, first, lines))
            first += lines
        return tuple(out)


def _died(exc: BaseException) -> bool:
    """A Ray error meaning a worker (or its node) went away, rather than a bug in the scoring code."""
    from ray import exceptions

    kinds = tuple(getattr(exceptions, name) for name in ("WorkerCrashedError", "NodeDiedError", "ActorDiedError",
                                                         "ObjectLostError", "OwnerDiedError",
                                                         "OutOfMemoryError", "TaskUnschedulableError")
                  if hasattr(exceptions, name))
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kinds) or any(isinstance(getattr(seen, "cause", None), k) for k in kinds):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextmanager
def _ray_data_settings(context: Any) -> Iterator[None]:
    """A Ray Data context set, for this run only, to keep block order and to draw no bars of its own (ek
    draws one). A dataset carries the context it was made under, so a caller's dataset is set as well."""
    wanted = {"enable_progress_bars": False, "print_on_execution_start": False}
    before = {k: getattr(context, k) for k in wanted if hasattr(context, k)}
    order = context.execution_options.preserve_order
    # Ray Data logs each run's plan and timing, and warns that its bars are off (ek draws its own); its executor
    # logs a failed task's whole traceback as an error, where the run raises that task's error, which ek reports
    quiet = {"ray.data": logging.ERROR, "ray.data._internal.progress": logging.ERROR,
             "ray.data._internal.execution.streaming_executor_state": logging.CRITICAL,
             "ray.data.exceptions": logging.CRITICAL}
    loggers = [logging.getLogger(name) for name in quiet]
    levels = [logger.level for logger in loggers]
    try:
        for logger in loggers:
            logger.setLevel(quiet[logger.name])
        for key in before:
            setattr(context, key, wanted[key])
        context.execution_options.preserve_order = True
        yield
    finally:
        for key, value in before.items():
            setattr(context, key, value)
        context.execution_options.preserve_order = order
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _run(dataset_of: Callable[[], Any], fn: Callable[..., Any], options: RunOptions, *, workers: int | None,
         block_lines: int, file_count: int,
         progress: Callable[[int, int, int], None] | None,
         export: Callable[[list[dict[str, Any]]], None] | None,
         step_seconds: float | None = None,
         block_seconds: float | None = None,
         inputs: RunInputs | None = None) -> tuple[Summary, LineCounts, _Merger, list[Any]]:
    ray = require_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    step_seconds = RAY_STEP_SECONDS if step_seconds is None else step_seconds
    block_seconds = RAY_BLOCK_SECONDS if block_seconds is None else block_seconds
    if inputs is None:
        inputs = read_inputs(options)
    gold_by_id, gold_errors, functions = inputs.gold_by_id, list(inputs.gold_errors), inputs.functions
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    search_path = options.metric_cache(functions).search_path
    desk = _bounded("creating the grammar desk actor (exporting its class to Ray's control service, the GCS)",
                    step_seconds, lambda: _create_desk(ray, here, search_path), late=ray.kill)
    total = options.new_summary()
    merger = _Merger(total, LineCounts(), [0] * file_count)
    try:
        plan = _Plan(uuid.uuid4().hex, options, desk, ray.put(gold_by_id) if gold_by_id is not None else None,
                     ray.put(functions) if functions is not None else None)
        with _ray_data_settings(ray.data.DataContext.get_current()):
            dataset = dataset_of()
            with _ray_data_settings(dataset.context):
                scored = _scored(dataset, fn, plan, block_lines, workers)
                with closing(_within(scored.iter_rows(), block_seconds, merger.waiting_for)) as rows:
                    _consume(rows, merger, progress, export)
    except RayEngineError:
        _kill_quietly(ray, desk, step_seconds)
        raise
    except Exception as exc:
        _kill_quietly(ray, desk, step_seconds)
        cause = getattr(exc, "cause", None)  # a task's own error, which Ray wraps with the task's traceback
        if isinstance(cause, SourceError):  # an input that broke off: its one line, as in one process (Ray Data
            raise SourceError(str(cause).partition("\n")[0]) from None  # adds lines of retry advice to it)
        if _died(exc):
            raise WorkerDiedError(f"a Ray worker died while scoring and its block failed {TASK_RETRIES + 1} "
                                  f"times ({type(exc).__name__}); lines after {merger.counts.read} were not "
                                  "scored. The run is incomplete, so no report was written") from None
        raise
    except BaseException:  # Ctrl-C: stop the desk, then let it through
        _kill_quietly(ray, desk, step_seconds)
        raise
    _bounded("stopping the grammar desk actor", step_seconds, lambda: ray.kill(desk))
    explain_kept(total, options, gold_by_id, functions, merger.kept.raw)
    total.attach_details(ATTACH)
    return total, merger.counts, merger, gold_errors


def _create_desk(ray: Any, here: Any, search_path: tuple[str, ...]) -> Any:
    """The run's :class:`_GrammarDesk`, on the driver's node. ``ray.remote(...).remote(...)`` exports the
    class to the GCS (a key-value put without deadline) and registers the actor there."""
    return ray.remote(num_cpus=0, scheduling_strategy=here)(_GrammarDesk).remote(os.getcwd(), search_path)


def _kill_quietly(ray: Any, desk: Any, seconds: float) -> None:
    """Stop the desk of a run that failed, without hiding why it failed (a GCS that stalled once may not
    answer this either: the run's own error is the one to see)."""
    try:
        _bounded("stopping the grammar desk actor", seconds, lambda: ray.kill(desk))
    except Exception:
        pass


def _scored(dataset: Any, fn: Callable[..., Any], plan: _Plan, block_lines: int, workers: int | None) -> Any:
    """The dataset of scored blocks. Ray Data retries a task without end by default, so a block that kills
    its worker every time would hang the run: retries are capped at :data:`TASK_RETRIES`. Ray 2.60 has no
    named parameter for that yet and warns about the generic one, which this run needs."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*ray_remote_args.*deprecated")
        return dataset.map_batches(fn, fn_kwargs={"plan": plan}, batch_size=block_lines, batch_format="pyarrow",
                                   num_cpus=1, concurrency=workers, max_retries=TASK_RETRIES)


def _consume(rows: Iterator[Any], merger: _Merger, progress: Callable[[int, int, int], None] | None,
             export: Callable[[list[dict[str, Any]]], None] | None) -> None:
    """Merge the scored blocks as they come back, handing on episode rows and reporting progress."""
    total = merger.total
    for row in rows:
        merger.add(pickle.loads(row["block"]))
        if total.export:
            if export is not None:
                export(list(total.export))
            total.export.clear()
        if progress is not None:
            progress(merger.size, merger.counts.read, merger.blocks)


def score_files(paths: str | Sequence[str], options: RunOptions, *, workers: int | None = None,
                block_lines: int = CHUNK_LINES, progress: Callable[[int, int, int], None] | None = None,
                export: Callable[[list[dict[str, Any]]], None] | None = None,
                step_seconds: float | None = None, block_seconds: float | None = None,
                inputs: RunInputs | None = None) -> RunResult:
    """Score corpus files on the Ray this process is connected to (see :func:`ray_session`).

    ``paths``: files or globs, read in order (:mod:`ek.corpus.sources`); ``workers``: at most this many
    scoring tasks at once (default: as many as Ray has CPUs for); ``progress(bytes, lines, blocks)`` is
    called after each block; ``export`` gets episode rows as :func:`ek.corpus.runner.run` gives them.
    ``step_seconds`` and ``block_seconds`` bound the waits on Ray (default :data:`ek.limits.RAY_STEP_SECONDS`
    and :data:`ek.limits.RAY_BLOCK_SECONDS`).
    Raises :class:`ek.corpus.runner.WorkerDiedError` when a block cannot be scored even after retries, and
    :class:`RayStallError` when Ray does not finish a step or the next block within its limit.
    ``inputs``: the gold and functions ``options`` name, already read (:func:`ek.corpus.runner.read_inputs`).
    """
    ray = require_ray()
    given = expand(paths)
    if "-" in given:
        raise RayEngineError("the Ray engine reads files, not stdin ('-'): give the corpus files")
    files = [os.path.abspath(p) for p in given]
    started = time.perf_counter()

    def dataset_of() -> Any:
        return ray.data.read_datasource(_datasource_class()(files, options.tau_bench), num_cpus=READ_CPUS)

    total, counts, merger, gold_errors = _run(dataset_of, _score_lines_batch, options, workers=workers,
                                               block_lines=block_lines, file_count=len(files),
                                               progress=progress, export=export, step_seconds=step_seconds,
                                               block_seconds=block_seconds, inputs=inputs)
    spans = merger.spans(given)
    return RunResult(run_label(spans), total, counts, tuple(gold_errors), time.perf_counter() - started, spans)


def score_dataset(dataset: Any, options: RunOptions | None = None, *, workers: int | None = None,
                  block_lines: int = CHUNK_LINES, name: str = "ray.data.Dataset", step_seconds: float | None = None,
                  block_seconds: float | None = None, **settings: Any) -> RunResult:
    """Score a ``ray.data.Dataset`` of episodes, one per row, with the columns of a JSON lines corpus
    (``id``, ``pred`` or ``output``/..., ``gold`` as a list of calls or as JSON text, ``grammar``, ``turns``,
    ``task``, ``category``, ``format``; other columns are ignored), and return the
    :class:`ek.corpus.runner.RunResult` that ``ek score`` renders (:func:`ek.report.jsonreport.build_report`).

    The metric is described by ``options`` (:class:`ek.corpus.runner.RunOptions`: grammar, level, order,
    ...), or by keyword ``settings`` that make one (``score_dataset(ds, grammar="travel.ek", level="arg")``).
    Rows are numbered 1, 2, ... in the dataset's order, as lines of a file named ``name``. ``step_seconds``
    and ``block_seconds`` bound the waits on Ray, as in :func:`score_files`.
    """
    if options is None:
        options = RunOptions(**settings)
    elif settings:
        options = attrs.evolve(options, **settings)
    if options.tau_bench:  # a row is an episode; tau-bench entries are read from their results files
        raise ValueError("tau_bench reads results files (score_files); a dataset's rows are corpus lines")
    started = time.perf_counter()
    total, counts, _merger, gold_errors = _run(lambda: dataset, _score_rows_batch, options, workers=workers,
                                                block_lines=block_lines, file_count=1, progress=None, export=None,
                                                step_seconds=step_seconds, block_seconds=block_seconds)
    spans = (FileSpan(name, 1, counts.read),)
    return RunResult(name, total, counts, tuple(gold_errors), time.perf_counter() - started, spans)


class ray_session:
    """Connect to the Ray at ``address`` for a run, or, without one, start a local Ray and stop it after.

    A Ray this process already runs (``ray.init`` done by the caller) is used as is and left running.
    Stopping a local Ray is bounded like every step (``step_seconds``, default
    :data:`ek.limits.RAY_STEP_SECONDS`): ``ray.shutdown`` waits on the GCS too, so past the limit the local
    Ray's processes are killed (:func:`_stop_ray`) and the session ends all the same.
    """

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 object_store_memory: int = LOCAL_OBJECT_STORE_BYTES, step_seconds: float | None = None) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.object_store_memory = object_store_memory
        self.step_seconds = step_seconds
        self._started = False

    def __enter__(self) -> Self:
        ray = require_ray()
        if ray.is_initialized():
            return self
        common = {"logging_level": logging.WARNING, "log_to_driver": False, "configure_logging": True}
        try:
            if self.address:
                ray.init(address=self.address, **common)
            else:
                ray.init(num_cpus=self.num_cpus or usable_cpus(), include_dashboard=False,
                         object_store_memory=self.object_store_memory, **common)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
            raise RayEngineError(f"cannot start or reach {where}: {exc}") from None
        self._started = True
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _traceback: object) -> None:
        if not self._started:
            return
        self._started = False
        seconds = RAY_STEP_SECONDS if self.step_seconds is None else self.step_seconds
        try:
            _stop_ray(require_ray(), seconds, local=not self.address)
        except RayStallError as stall:
            if error is None:
                raise
            error.add_note(str(stall))  # the run's own error says why it failed; this one only follows


def _stop_ray(ray: Any, seconds: float, *, local: bool) -> None:
    """``ray.shutdown()``, waited for at most ``seconds``. It waits on the GCS as well (the driver says
    goodbye to it), so it hangs on the GCS a run just stalled on: then a local Ray's processes, which this
    process started, are killed, which ends the shutdown at once (its calls fail instead of waiting), and the
    stall is reported. A cluster's processes are not this process's to kill: the stall is reported as is."""
    waiter = threading.Thread(target=ray.shutdown, name="ek-ray: stopping Ray", daemon=True)
    waiter.start()
    waiter.join(seconds)
    if not waiter.is_alive():
        return
    if local:
        _kill_local_ray()
        waiter.join(seconds)
        raise RayStallError("stopping the local Ray", seconds, "its GCS did not answer: its processes were "
                            "killed; the limit is ek.limits.RAY_STEP_SECONDS")
    raise RayStallError("disconnecting from the Ray cluster", seconds, "its GCS did not answer; the limit is "
                        "ek.limits.RAY_STEP_SECONDS")


def _kill_local_ray() -> None:
    """Kill the processes of the local Ray this process started (GCS, raylet, ...), with Ray's own
    ``Node.kill_all_processes``: the one way to end a shutdown that waits on a GCS that does not answer."""
    from ray._private import worker  # no public API stops a local Ray without asking its GCS

    node = getattr(worker, "_global_node", None)
    if node is not None:
        node.kill_all_processes(check_alive=False, allow_graceful=False, wait=True)


__all__ = ["RAY_HINT", "TASK_RETRIES", "RayEngineError", "RayStallError", "ray_session", "require_ray", "score_dataset",
           "score_files"]
