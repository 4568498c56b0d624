"""Every size, depth and count limit of ek, each with the reason it has the value it has.

One owner: the DSL checker, the JSON Schema importer, the code generator,
the output parsers, the gold reader and the corpus engine all read their
limits here, so a schema that lints clean always generates, an imported
schema always lints, and a value the parser accepts is one the scorer can
compare without recursing out.
"""

from __future__ import annotations

import sys

# --- model output and gold values -----------------------------------------------------------------------------

#: Largest model output read, in characters (bytes for ``bytes``); past it the output is a parse error.
#: A megabyte is far beyond any real tool-call reply and keeps one line's work bounded.
OUTPUT_MAX_SIZE = 1_000_000

#: Most tokens (Python's tokenizer's: names, numbers, strings, operators, line breaks) of model output that
#: Python's parser reads (Python call text that is not plain call text, see docs/parsing.md: on several lines,
#: with escapes, or cut short). ``ast.parse`` takes about 500 to 700 bytes a token: a megabyte of ``f(x=1)``
#: lines peaked at 700 MB, one ``--jobs`` worker each. A string is one token however long, so a real reply of
#: a few kilobytes is a few hundred tokens, and one writing a file's content in an argument is few more; past
#: this the output is a parse error naming the limit, at about 35 MB of parser memory.
OUTPUT_AST_MAX_TOKENS = 50_000

#: Deepest bracket nesting read in model output (calls, lists and objects all count). ``ast.parse`` and
#: ``json.loads`` recurse, so the limit is checked by an iterative scan first; real calls nest a few levels.
OUTPUT_MAX_DEPTH = 64

#: Most decimal digits an integer may have: Python's int/str conversion limit. Text cannot carry a longer one
#: (``int()`` and ``json.loads`` refuse it), ``str()``/``repr()``/``json.dumps`` cannot write one, so every
#: reader of ek refuses it (a hex literal can still spell it) and every renderer shows it without ``str``.
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300

#: Longest corpus or gold-file line read, in bytes (a JSON line, a gzip one decompressed). A line holds a few
#: outputs of at most :data:`OUTPUT_MAX_SIZE` each and their gold; past this it is one error line, and the rest
#: of it is skipped a megabyte at a time, so a file with no line break (``/dev/zero``, a gzip of zeros) costs about
#: twice this much memory (the first read, joined from the stream's buffers), not the file.
CORPUS_LINE_MAX_BYTES = 64 * 1024 * 1024

#: Deepest bracket nesting of a corpus or gold-file line's JSON, ignored keys included. Python's JSON decoder
#: recurses, and how deep it gets before a RecursionError depends on the version (3.11 and 3.12 stop near 1,000
#: levels, 3.13 goes on past 3,000), so a line's fate would too; past this fixed depth the line is an error line
#: on every version. Far above any real line: outputs and gold nest at most :data:`OUTPUT_MAX_DEPTH`.
CORPUS_LINE_MAX_DEPTH = 512

#: Largest tau-bench or tau2-bench results file read (``ek score --tau-bench``), in bytes (gzip: decompressed).
#: Such a file is one JSON document, read whole (its entries are not lines); a run of a few hundred trials is 5
#: to 50 MB, and the decoded document takes several times its size in memory, so past this the file is refused
#: before it is decoded, not read until memory runs out.
TAU_RESULTS_MAX_BYTES = 512 * 1024 * 1024

#: Deepest nesting of a gold value (gold JSON, ``OneOf`` alternatives included): the same as model output,
#: so every gold value is one a prediction could equal.
GOLD_MAX_DEPTH = OUTPUT_MAX_DEPTH

# --- order constraints ------------------------------------------------------------------------------------------

#: Most search nodes the exact scorer of ``after`` constraints (``order="gold"``) visits for one episode; past
#: it the episode is refused ("too entangled to score exactly") instead of scored greedily. Each node solves one
#: tool's assignment; real trajectories (a few constraints, a few conflicts) need a handful of nodes.
ORDER_MAX_NODES = 2_000

#: Most search work for one episode's ``after`` constraints: the sum of k²·l over the k x l tool assignments the
#: search solves, plus, at each node, 5 for each candidate pair and each gold call and constraint it reads
#: (``ek.scorer.assign._SCAN_COST``: 350 ns where a step of assignment is 60 to 90). About a second of pure
#: Python, so a large tool group, or a long chain whose every pair clashes, refuses in a second, not minutes.
ORDER_MAX_WORK = 20_000_000

# --- schemas ----------------------------------------------------------------------------------------------------

#: Smallest and largest tool weight and argument importance. They are relative costs, so a million to one is far
#: past any real ratio; past the bounds sums stop being what they mean: a weight of 1e308 made a corpus report's
#: float totals overflow (a crash of the whole run), and weight 1e-300 times importance 1e-300 rounds to 0, so a
#: mistake cost nothing and F1 showed 1.0.
COST_WEIGHT_MIN = 1e-6
COST_WEIGHT_MAX = 1e6

#: Deepest nesting of ``list[...]`` and ``{ ... }`` in an argument's type, counted through named types, and of
#: ``[...]``/``{...}`` in a default. Generated validators indent about two levels per object level and Python's
#: tokenizer refuses more than 100 indentation levels, so 32 is what the generator can always write; real tool
#: schemas nest a few levels.
SCHEMA_MAX_NESTING = 32

#: Deepest nesting of lists within lists (through objects) in one argument's type. Each list level is a ``for``
#: loop in the generated validator and CPython compiles at most 20 statically nested blocks (loops and ``try``; 21
#: from 3.13).
SCHEMA_MAX_LIST_NESTING = 9

#: Deepest JSON Schema nesting ``ek import`` reads (objects in arrays in objects ...); deeper parts are reported
#: and read as ``any``, so an imported schema always fits :data:`SCHEMA_MAX_NESTING`.
IMPORT_MAX_DEPTH = SCHEMA_MAX_NESTING

#: Widest ``ek export --indent``: each level of the JSON repeats the indent, so ``--indent 1000000`` wrote a
#: gigabyte for a small schema and ``--indent 1000000000`` died of a MemoryError; jq stops at 7.
EXPORT_MAX_INDENT = 16

#: Members of one enum, and values in one default (list items and object fields, through any nesting).
#: Real tool schemas list a few dozen (OpenAI caps a whole strict schema at a thousand enum values). A
#: generated module spells each member out more than once, and CPython needs about a hundred times a
#: statement's size in memory to compile it: 200,000 members took 300 MB to generate and to import.
SCHEMA_MAX_ENUM_MEMBERS = 10_000
SCHEMA_MAX_DEFAULT_VALUES = 10_000

#: Type nodes (lists, objects, their fields' types and leaves) of all of a grammar's tools, each named type
#: written out wherever it is used, as the generated validators spell them out: about 500 bytes of module each
#: at an argument's top, 1.7 kB ten levels down. Ten thousand tools of ten plain arguments are 100,000 (a 50 MB
#: module). A few named types that each use the one before twice are 2**n nodes: a 2 kB schema made a 56 MB
#: module at n = 14 and ran out of memory at n = 16 (n = 30 took 23 GB before it was killed).
SCHEMA_MAX_TYPE_NODES = 100_000

#: Bytes of one schema file (``.ek``) or tool-definition file (``ek import``) read: a file or stream past it is
#: refused before more is read. A 10,000-tool schema is a few megabytes; ``/dev/zero`` or an endless pipe, read
#: whole, would take the machine's memory.
SCHEMA_FILE_MAX_BYTES = 64 * 1024 * 1024

#: Syntax errors reported per schema file before the parser stops resuming: past a few dozen, the rest are
#: echoes of the first ones.
SYNTAX_ERRORS_REPORTED = 50

#: Positions (characters to read, after small counted repetitions are expanded) of a schema regex that
#: :mod:`ek.grammar.regexes` analyses for backtracking. Its products of positions grow with the square and
#: cube of this; real tool-schema patterns have a few dozen, an e-mail or URL pattern a few hundred.
REGEX_MAX_POSITIONS = 2000

#: Characters of a schema regex ek compiles at all: ``re`` builds a parse tree of about a hundred bytes per
#: character before anything else can be said, so a megabyte-long pattern would cost hundreds of megabytes.
#: Past :data:`REGEX_MAX_POSITIONS` positions a pattern is refused anyway; this stops it before the parse.
REGEX_MAX_LENGTH = 10_000

# --- caches and reports ------------------------------------------------------------------------------------------

#: Canonical forms of strings kept (``ek.canon.fold`` and ``bfcl``: corpora and a GRPO group repeat the same
#: strings), and the longest string, before and after, kept among them. Every string a model writes is
#: canonicalized, so the bound on length is what bounds memory: with any length kept, an RL run whose policy
#: writes long strings (code, documents) kept every distinct one up to the megabyte an output may hold, 65,536
#: times over (200 MB after 500 completions of a 200 kB string). At 128 characters the forms take at most
#: ~25 MB of ASCII text (~80 MB of 4-byte characters); a longer string is canonicalized again each time, at a
#: cost in proportion to the work that reads it.
CANON_CACHE_ENTRIES = 1 << 16
CANON_CACHE_MAX_CHARS = 128

#: Per-grammar validators kept alive at once (BFCL gives every entry its own grammar: they must not pile up).
SHARED_VALIDATORS = 256

#: Compiled per-tool validators kept by their source (BFCL's 1,000 Python entries render about 900 distinct
#: ones: a question's tools recur in others; past this many the least recently used is dropped).
COMPILED_VALIDATORS = 1024

#: Per-entry BFCL metrics the corpus engine keeps, by the content of the entry's function schemas. Enough
#: for all of BFCL (its 3,641 entries with functions have 2,116 distinct function sets): a corpus that goes
#: over the questions again and again (one result file per model or per sample, concatenated) must not build
#: every metric again on every pass, which made such a corpus 3.7x slower than the same lines sorted by
#: question at 256. One metric with its compiled validators is about 15 KiB, so at most about 60 MiB.
BFCL_METRICS_CACHED = 4096

#: Gold entries of a gold file (``--gold``, ``--bfcl-answers``) whose check and prepared form one process of
#: ``ek score`` keeps for the lines that answer them again (the same bound as the metrics above, which they
#: go with; a line's own gold passes through, oldest dropped first).
GOLD_MEMO_ENTRIES = BFCL_METRICS_CACHED

#: Bytes of one file of BFCL's multi-turn API source ek reads signatures from (the largest, long_context.py,
#: is under 200 kB): a file far larger is not BFCL's source, and is refused before ``ast.parse``.
BFCL_SOURCE_MAX_BYTES = 4_000_000

#: Error lines a corpus report keeps in full; all are counted, so memory stays flat on the wrong file.
ERROR_LINES_KEPT = 10_000

#: Largest k at which a report (``ek score``'s ``repeats``) gives pass@k and pass^k for every k, in exact arithmetic;
#: past it only at the powers of two and of ten and at the smallest sample count, each in floating point
#: (:func:`ek.stats.pass_k_values`). tau-bench reports k = 1 to its trial count (a handful), Chen et al. 2021
#: pass@1, @10 and @100. Every k up to n, exactly, was n rows and n big-integer binomials of up to n digits:
#: one task of 10,000 samples took 20 s and printed a 10,000-row table.
PASS_K_EVERY = 16

#: Tasks whose samples have different gold (``ek score``'s ``repeats.different_gold``; and apart from them, of
#: different grammars: ``repeats.different_grammar``) a report lists, each with a
#: line of either gold; all are counted. One is enough to fix a join; the list shows whether it is one task or all.
MIXED_GOLD_TASKS_LISTED = 10

#: Characters of a value kept in an alignment shown for the worst episodes (a window around the difference).
ALIGNMENT_VALUE_CHARS = 300

#: Steps (and FP/FN units) of one episode's alignment the HTML report shows: the wrong ones first, then matches,
#: in order. An episode of 200,000 gold calls wrote a 49 MB page; a person reads a few hundred rows, and the JSON
#: report and ``--episodes-out`` keep the counts of everything.
ALIGNMENT_ROWS_SHOWN = 500

#: Tools the console table lists, worst F1 first, and the tools the HTML page's table and F1 chart show: a BFCL
#: run has a thousand or more (each question's own functions), and a model making up tool names one per episode
#: gave a corpus of 70,000 distinct names a 100,000-row console table and a 40 MB page. The JSON report keeps
#: every tool; the reports say how many more there are.
TOOL_ROWS_PRINTED = 50
TOOL_ROWS_SHOWN = 1_000

#: Corpus lines of a run's first chunks (each scored into a summary, in-process or by a ``--jobs`` worker):
#: large enough to amortise the hand-off, small enough that a small corpus keeps every worker busy.
CHUNK_LINES = 512

#: Lines a chunk grows to (doubling every ``jobs`` chunks from :data:`CHUNK_LINES`). A chunk's lines are
#: scored grouped by episode id (see :func:`ek.corpus.runner.score_lines`), so lines of one question met
#: again in it are scored one after another while its metric, rules and prepared gold are still in the CPU's
#: caches (docs/performance.md, "Lines of one question together"). Memory: the lines of ``2 * jobs`` chunks,
#: and one chunk's scores, at a time; 8,192 made peak memory grow x1.63 from 10k to 1M episodes (a 10k
#: corpus never reaches the largest chunk), 4,096 x1.20.
SCORE_WINDOW_LINES = 4096

#: Fewest lines of a piece of a ``--jobs`` run's tail (its last full chunk and what follows, cut into pieces
#: that shrink as they go, see :func:`ek.corpus.runner._run_chunks`): a few milliseconds of scoring, so that
#: the hand-off of a piece stays small beside it.
TAIL_CHUNK_LINES = 128

#: Most pairs of calls the metric compares and ranks in one pairing of an episode's calls (one turn; with order
#: constraints an episode is paired in up to three such steps), past the pairs its exact-match fast paths take:
#: each is about a microsecond of comparison, then ranked, so a million is a second or two; real episodes rank
#: a few dozen. Past it the episode is refused ("too many calls to pair"), not scored for
#: minutes or hours: 2,000 wrong calls against 2,000 gold calls of one tool (4 million pairs) took 6 s, and a
#: megabyte output holds a hundred thousand calls.
MATCH_MAX_PAIRS = 1_000_000

#: Most bootstrap replicates ``ek score --bootstrap`` and ``ek compare --bootstrap`` (and :mod:`ek.stats`) draw.
#: A 95% interval's ends settle within about 0.001 of F1 by ten thousand; a hundred thousand leaves room for
#: p-values near 1e-5. Each replicate resamples every episode and keeps one float, so the bound keeps a run's
#: time and memory in proportion to its corpus, not to a mistyped count (``--bootstrap 2000000000`` would
#: fill gigabytes and run for days).
BOOTSTRAP_MAX_REPLICATES = 100_000

#: Calls of one tool, on each side, up to which the metric's all-exact test (``ek.scorer.exact``) compares them
#: pair by pair; a larger group is tested through an argument that tells its gold calls apart, or left to the
#: general path (which compares its pairs anyway): the test never adds a quadratic cost of its own.
EXACT_PAIRWISE_CALLS = 16

#: Calls of one tool a validator interprets (ek.grammar.fits) before it makes the tool's compiled validator
#: (ek.runtime.lazy). Ski rental, measured in instructions (valgrind's callgrind, steady whatever else runs) on
#: BFCL's 1,296 Python tools, all in one fresh process whose shape and source caches start empty (shapes are
#: shared as in a run): making a tool's validator (its plan, its shape's code, its strings:
#: ek.runtime.shapecode) costs 2.0M instructions on average (338 µs of CPU); a call interpreted by the tool's plan costs 2.1k instructions more than the
#: compiled code on its gold arguments (8.3k against 6.2k; CPU time, medians 0.48 against 0.20 µs) and 4.1k
#: more on BFCL's mutated arguments (15.0k against 10.9k). Buying after B/r calls keeps a tool's cost within
#: twice the cheaper choice's: 950 calls for correct calls, 490 for wrong ones; 640, near B over the two
#: gaps' geometric mean (690), keeps any mix of them within 2.5x. (It was 128 when interpreting cost ~1.75 µs
#: more a call.) A tool checked once or twice (a BFCL question's gold and one output, the usual result file)
#: is never compiled at all.
INTERPRETED_CALLS = 640

# --- the Ray engine -----------------------------------------------------------------------------------------------

#: Seconds one control step of the Ray engine may take (creating the grammar desk actor, which first exports
#: its class to Ray's control service, the GCS; killing it; stopping a local Ray ek started). Each takes
#: milliseconds; Ray itself waits on some of them without a deadline (its GCS key-value puts have none), so a
#: GCS that stops answering would hang the run: past this the run stops with ``RayStallError`` naming the step.
RAY_STEP_SECONDS = 120

#: Seconds the Ray engine waits for the next scored block before it stops the run with ``RayStallError``. A
#: block of 512 lines scores in well under a second; the first one also waits for worker processes to start
#: and grammars to compile (seconds to a minute on a busy machine), and a cluster may queue tasks for a while:
#: ten minutes is far past any of that, and still turns a run that can never finish into an error.
RAY_BLOCK_SECONDS = 600
