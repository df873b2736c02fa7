"""Write a content folder of N realistic, valid error records, the same for the same seed.

Run: python benchmarks/synth.py N OUTDIR [--seed S]

Each record is shaped like a hand-written one: a 35-line Python snippet from one of
~60 source files with the raise inside it, a message template (f-string placeholders,
%-style or plain), four prose sections, five related ids, tags and an analysis.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

PACKAGE = "tinyserve"
REPO = "example/tinyserve"
SNIPPET_LINES = 35
SOURCE_FILES = 60

EXCEPTIONS = [
    "ValueError", "ValueError", "ValueError", "TypeError", "RuntimeError", "KeyError",
    "NotImplementedError", "AssertionError", "OSError", "IndexError",
    f"{PACKAGE}.errors.ConfigError", f"{PACKAGE}.errors.SchedulerError",
    f"{PACKAGE}.errors.ModelLoadError", "errors.InvalidRequestError",
]
SUBSYSTEMS = [
    "config", "batching", "scheduler", "kv-cache", "attention", "tokenizer", "sampling",
    "lora", "quantization", "distributed", "speculative-decoding", "server", "metrics", "loader",
]
NOUNS = [
    "max_batch_tokens", "chunk_size", "page_size", "num_heads", "head_dim", "block_size",
    "tensor_parallel_size", "max_model_len", "gpu_memory_utilization", "swap_space",
    "num_speculative_tokens", "lora_rank", "dtype", "kv_cache_dtype", "seed", "top_p",
    "temperature", "max_num_seqs", "pipeline_parallel_size", "rope_scaling",
]
OBJECTS = ["config", "args", "model_config", "cache_config", "self", "request", "params", "view"]
VERBS = ["must be at least", "must not exceed", "must be a multiple of", "is incompatible with",
         "must divide", "cannot be combined with", "must equal"]
WORDS = ("the scheduler splits every prompt into chunks and each chunk must fit in one batch "
         "so a budget smaller than one chunk could never run when the cache is full the engine "
         "preempts sequences and swaps their blocks to host memory which needs room reserved "
         "at start up a value outside the supported range is rejected before any weights load "
         "because failing later would waste minutes of loading time on a large model").split()


def synthesize(n: int, out: Path, seed: int = 0) -> None:
    """Write `site.toml` and `errors/*.json` of `n` valid records into `out`."""
    rng = random.Random(seed)
    errors = out / "errors"
    errors.mkdir(parents=True, exist_ok=True)
    (out / "site.toml").write_text(
        f'title = "{PACKAGE} errors"\nbase_url = "https://example.github.io/{PACKAGE}/"\nrepo = "{REPO}"\n',
        encoding="utf-8",
    )
    files = [f"{PACKAGE}/{rng.choice(SUBSYSTEMS).replace('-', '_')}/{_word(rng)}_{i}.py"
             for i in range(SOURCE_FILES)]
    next_line = dict.fromkeys(files, 12)
    commit = hashlib.sha1(f"commit {seed}".encode()).hexdigest()
    drafts = []
    for index in range(n):
        path = files[rng.randrange(len(files))]
        start = next_line[path]
        next_line[path] = start + rng.randint(20, 60)
        drafts.append(_draft(rng, index, path, start, commit))
    ids = [d["id"] for d in drafts]
    for index, record in enumerate(drafts):
        others = [i for i in rng.sample(range(n), min(n, 6)) if i != index][:5]
        record["related"] = [ids[i] for i in others]
        text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        (errors / f"{record['id']}.json").write_text(text, encoding="utf-8")


def _draft(rng: random.Random, index: int, path: str, start: int, commit: str) -> dict:
    exception = rng.choice(EXCEPTIONS)
    noun, other = rng.sample(NOUNS, 2)
    obj = rng.choice(OBJECTS)
    verb = rng.choice(VERBS)
    style = rng.choice(["fstring", "fstring", "percent", "plain"])
    function = f"{_word(rng).title()}Config.check_{noun}" if rng.random() < 0.6 else f"check_{noun}"
    if style == "fstring":
        message = f"{noun} ({{{obj}.{noun}}}) {verb} {other} ({{{obj}.{other}!r}})"
        raise_code = [f'f"{noun} ({{{obj}.{noun}}}) {verb} "', f'f"{other} ({{{obj}.{other}!r}})"']
    elif style == "percent":
        message = f"{noun} %d {verb} {other}, got %s"
        raise_code = [f'"{noun} %d {verb} {other}, got %s"', f"% ({obj}.{noun}, {obj}.{other})"]
    else:
        message = f"{noun} {verb} {other}; set both or neither"
        raise_code = [f'"{message}"']
    key = "\n".join([REPO, path, function, exception, message, str(index)])
    record_id = hashlib.sha256(key.encode()).hexdigest()[:16]
    before = rng.randint(10, 22)
    code, raise_offset = _snippet(rng, before, exception, raise_code, obj, noun, other, function)
    fix_value = rng.choice([64, 128, 512, 2048, 4096, 8192])
    return {
        "$schema": "https://errorsite.github.io/errorsite/api/schema.json",
        "id": record_id,
        "exception": exception,
        "message": message,
        "source": {
            "commit": commit,
            "path": path,
            "line": start + raise_offset,
            "function": function,
            "snippet": {"start": start, "code": code},
        },
        "meaning": f"{_sentence(rng)} `{noun}` {_sentence(rng, 12)}\n\n{_sentence(rng, 20)} "
                   f"See [the {noun} guide](https://example.org/docs/{noun}).",
        "solutions": [
            f"Set `--{noun.replace('_', '-')}` to a value that {verb} `{other}`.",
            f"Or change `--{other.replace('_', '-')}`: {_sentence(rng, 10)}",
            f"{_sentence(rng, 14)} Check `{obj}.{noun}` with `tinyserve config --show`.",
        ],
        "example_fix": {
            "before": f"tinyserve serve --{noun.replace('_', '-')} {fix_value * 2} --{other.replace('_', '-')} {fix_value}",
            "after": f"tinyserve serve --{noun.replace('_', '-')} {fix_value} --{other.replace('_', '-')} {fix_value}",
            "code": f"if {obj}.{noun} > {obj}.{other}:\n    {obj}.{noun} = {obj}.{other}\n",
            "code_language": "python",
            "note": f"{_sentence(rng, 9)} `{other}`.",
        },
        "when": {
            "trigger": f"Starting the server with `--{noun.replace('_', '-')}` set so that it no longer {verb} `{other}`.",
            "situations": f"- {_sentence(rng, 10)}\n- {_sentence(rng, 12)}\n- {_sentence(rng, 8)}",
        },
        "tags": sorted(set(rng.sample(SUBSYSTEMS, rng.randint(1, 3)))),
        "analysis": {"by": rng.choice(["human", "ai-assisted", "maintainers"]),
                     "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"},
    }


def _snippet(rng: random.Random, before: int, exception: str, raise_code: list[str],
             obj: str, noun: str, other: str, function: str) -> tuple[str, int]:
    """Return 35 lines of plausible Python and the offset of the raise line in them."""
    name = function.rpartition(".")[2]
    lines = [f"    def {name}(self, {obj}):", f'        """Reject a {noun} the engine cannot honour."""']
    blocks = [
        [f"        {noun} = getattr({obj}, {noun!r}, None)"],
        [f"        if {obj}.{other} is None:",
         f"            {obj}.{other} = DEFAULTS[{other!r}]  # fall back to the default"],
        [""],
        [f"        logger.debug(\"checking %s=%r\", {noun!r}, {obj}.{noun})"],
        [f"        limit = max(1, {obj}.{other} // {rng.choice([2, 4, 8, 16])})"],
        ["        for key, value in sorted(self._overrides.items()):",
         "            setattr(self, key, value)"],
    ]
    while len(lines) < before - 1:
        lines += rng.choice(blocks)[: before - 1 - len(lines)]
    lines.append(f"        if {obj}.{noun} > {obj}.{other}:")
    raise_offset = len(lines)
    short = exception.rpartition(".")[2] if exception.startswith(PACKAGE) else exception
    lines.append(f"            raise {short}(")
    lines += [f"                {part}" for part in raise_code]
    lines.append("            )")
    while len(lines) < SNIPPET_LINES:
        lines.append(rng.choice([
            f"        self.{noun} = {obj}.{noun}",
            "        return self",
            "",
            f"        # {' '.join(rng.choice(WORDS) for _ in range(7))}",
            f"        self._cache[{noun!r}] = {rng.randint(0, 4096)}",
            f"        yield from self._check_all({obj}, strict={rng.choice(['True', 'False'])})",
        ]))
    return "\n".join(lines) + "\n", raise_offset


def _sentence(rng: random.Random, words: int = 16) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def _word(rng: random.Random) -> str:
    return rng.choice(["engine", "worker", "block", "pool", "model", "router", "runner", "stage"])


def main() -> None:
    """Parse the command line and write the folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="how many records")
    parser.add_argument("out", type=Path, help="content folder to write")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    synthesize(args.n, args.out, args.seed)


if __name__ == "__main__":
    main()
