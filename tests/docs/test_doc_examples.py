"""Every example of the documentation runs as written, and prints what the documentation shows.

What runs: every fenced ```sh, ```bash, ```console and ```python block of README.md, docs/**/*.md and
clients/python/README.md, and the lines beginning with ``curl`` of any other fenced block, in the order of the
document. A document is one bash script (``set -euo pipefail``), so that its variables and files carry from one
block to the next as in a terminal; a python block runs in it as ``python -u - <<EOF`` (the venv's python).

Where: a scratch directory holding a link to every top-level entry of the checkout (``./deploy/...`` and
``clients/python/examples/...`` resolve; the files an example writes stay out of the tree), with the venv's
``bin`` first on ``PATH`` (so ``card-referee``, which the test command installs, is the one the docs run).

Against what: one real service, ``gunicorn -c deploy/gunicorn.conf.py`` (tests/deploy/cluster.py's Instance)
with a redis-server of its own, on a free port. ``localhost:8000`` and ``127.0.0.1:8000`` in the examples
become that port, and every other port an example names (``--port 9001``, ``:9001/``, ``port=9001``) a free
port of its own, the same throughout the document. A line that starts the service (``./deploy/serve.sh``,
alone or in the background) is not run: the test serves it. Nor is a ``pip install``: the test command has
installed the project and its client, and an editable install made from the scratch directory would point the
venv at it. The service runs with ``SESSION_QUOTA=off`` (a
tournament creates a session per match; docs/tournaments.md asks for it) and ``EVENTS_MAX=2``, so that an
event stream ends after two seconds instead of staying open until its match ends.

Shown outputs: comment lines directly after a command (``# {"to_act":[1],...}``) show what it prints; a
trailing comment on a python ``print(`` line shows what that print prints. They are compared with the
output, whitespace ignored, ``...`` matching anything. Any other comment is an explanation and must follow the
command on its line (``cmd   # why``). A ``curl`` whose output is not shown must succeed (it runs with
``--fail-with-body``); one whose output is shown may show a problem answer.

Opting out: ``<!-- illustration -->`` on the line before a block shows the block without running it. It is
for what cannot run in a test: the test command itself, a server that runs until stopped, a cluster, a
benchmark of many minutes.

A failure names the document, the line of the command, and what differs.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.deploy.cluster import Instance
from tests.redis_server import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]
ILLUSTRATION = "<!-- illustration -->"
SHELL_LANGS = {"sh", "bash", "console"}
SERVICE_PORT = "8000"
SERVES = re.compile(r"^\s*(?:[A-Z_]+=\S*\s+)*\./deploy/serve\.sh\b")
INSTALLS = re.compile(r"^\s*(?:\S*python3?\s+-m\s+)?\S*pip3?\s+install\b")
PORT_PATTERNS = (r"(?<=:)(\d{4,5})\b", r"(?<=--port[ =])(\d{4,5})\b", r"(?<=port=)(\d{4,5})\b")
MARK = "CR-DOC-MARK"
DOCUMENT_SECONDS = 300


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "clients" / "python" / "README.md"]


@dataclass
class Block:
    lang: str
    first_line: int  # the line number (1-based) of the block's first line of code
    lines: list[str]


@dataclass
class Step:
    """One command of a document (or a python block, or one print of it), with the output the doc shows."""
    line: int
    code: str
    expected: str | None = None


@dataclass
class Script:
    path: Path
    steps: list[Step] = field(default_factory=list)


def fenced_blocks(text: str) -> Iterator[Block]:
    """The fenced blocks of a Markdown text, unindented, that are not marked as illustrations."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = re.match(r"^( *)```(\w*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        indent, lang = opening.groups()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), len(lines))
        previous = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        body = [line[len(indent):] if line.startswith(indent) else line for line in lines[i + 1:end]]
        if previous != ILLUSTRATION:
            yield Block(lang, i + 2, body)
        i = end + 1


def is_complete(shell: str) -> bool:
    """Whether a piece of shell is whole commands (no open quote, pipe, loop or continuation)."""
    if shell.rstrip().endswith(("\\", "|", "&&", "||")):
        return False
    return subprocess.run(["bash", "-n", "-c", shell], capture_output=True).returncode == 0


def shell_steps(block: Block) -> list[Step]:
    """A shell block's commands, each with the comment lines right after it as its shown output."""
    steps: list[Step] = []
    pending: list[str] = []
    start = block.first_line
    shown: list[str] | None = None
    for number, line in enumerate(block.lines, start=block.first_line):
        stripped = line.strip()
        if not pending and stripped.startswith("#"):
            if steps and shown is not None:
                shown.append(stripped[1:])
                steps[-1].expected = "\n".join(shown)
            continue
        shown = None  # a blank line or a command ends the output shown for the last one
        if not stripped and not pending:
            continue
        if not pending:
            start = number
        pending.append(line)
        if is_complete("\n".join(pending)):
            code = "\n".join(pending)
            if SERVES.match(code):
                code = ": the test serves the service, so this is not run: " + shlex.quote(code)
            elif INSTALLS.match(code):
                code = ": the test command installed the packages, so this is not run: " + shlex.quote(code)
            steps.append(Step(start, code))
            pending, shown = [], []
    if pending:
        steps.append(Step(start, "\n".join(pending)))  # incomplete: bash will say what is wrong
    return steps


def python_steps(block: Block, first: int) -> list[Step]:
    """A python block as one step, with a step of its own for each ``print(`` that shows its output (the
    steps are numbered from ``first`` in the document's script)."""
    steps = [Step(block.first_line, "")]
    body: list[str] = []
    for number, line in enumerate(block.lines, start=block.first_line):
        shown = re.match(r"^(\s*)(print\(.*?)\s+#\s?(.*)$", line)
        if not shown:
            body.append(line)
            continue
        indent, call, expected = shown.groups()
        steps.append(Step(number, call, expected))
        name = f"{MARK} {first + len(steps) - 1}"
        body += [f"{indent}print({name!r}, flush=True)", f"{indent}{call}",
                 f"{indent}print({name + '.end'!r}, flush=True)"]
    steps[0].code = "python -u - <<'CR_DOC_PY'\n" + "\n".join(body) + "\nCR_DOC_PY"
    return steps


def script_of(path: Path) -> Script:
    """The runnable examples of a document, in order."""
    script = Script(path)
    for block in fenced_blocks(path.read_text()):
        if block.lang in SHELL_LANGS:
            script.steps += shell_steps(block)
        elif block.lang == "python":
            script.steps += python_steps(block, len(script.steps))
        else:
            curls = [(n, line) for n, line in enumerate(block.lines, start=block.first_line)
                     if line.lstrip().startswith("curl ")]
            script.steps += [Step(n, line) for n, line in curls]
    recursive = [step.line for step in script.steps
                 if re.search(r"^[^#]*(tests/run\.sh|pytest)", step.code, flags=re.M)]
    assert not recursive, f"{path.relative_to(ROOT)}:{recursive}: the test command cannot run inside itself; " \
        f"mark the block {ILLUSTRATION}"
    return script


def port_map(text: str, service_port: int) -> dict[str, int]:
    """Every port the examples name, to the port the test uses for it."""
    ports = {found for pattern in PORT_PATTERNS for found in re.findall(pattern, text)}
    return {port: service_port if port == SERVICE_PORT else free_port() for port in ports}


def with_ports(code: str, ports: dict[str, int]) -> str:
    for old, new in ports.items():
        code = re.sub(rf"(?<=[:= ]){old}\b", str(new), code)
    return code


PRELUDE = f"""set -euo pipefail
curl() {{ if [ "${{CR_DOC_SHOWN:-0}}" = 1 ]; then command curl "$@"; else command curl --fail-with-body "$@"; fi; }}
await_port() {{ for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done; }}
mark() {{ printf '\\n{MARK} %s\\n' "$1"; }}
"""


def bash_script(script: Script, ports: dict[str, int]) -> str:
    """The document as one bash script that prints a mark before each step's output."""
    parts = [PRELUDE]
    for index, step in enumerate(script.steps):
        if step.code.startswith("print("):
            continue  # printed inside its python block, which marks it itself
        shown = int(step.expected is not None)
        code = with_ports(step.code, ports)
        parts.append(f"mark {index}; CR_DOC_SHOWN={shown}\n{code}")
        parts += [f"await_port {port}" for port in started_servers(code)]
    parts.append("mark end")
    return "\n".join(parts) + "\n"


def started_servers(code: str) -> list[str]:
    """The ports a command started in the background listens on: the next step waits for them, as a person
    typing the next line would have."""
    if not re.search(r"&\s*(#.*)?$", code):
        return []
    return re.findall(r"--port[ =](\d+)", code)


def named_files(script: Script) -> list[str]:
    """Files of the checkout that the examples name (a tournament's description, say)."""
    names = {name for step in script.steps for name in re.findall(r"[\w.-]+(?:/[\w.-]+)+", step.code)}
    return sorted(name for name in names if (ROOT / name).is_file() and is_text(ROOT / name))


def is_text(path: Path) -> bool:
    try:
        path.read_text()
    except (UnicodeDecodeError, OSError):
        return False
    return True


def copy_with_ports(scratch: Path, name: str, ports: dict[str, int]) -> None:
    """Put a copy of a checkout file, its ports replaced, where the scratch directory links the original: the
    linked directories above it become real ones that link their other entries."""
    here = scratch
    for part in Path(name).parts[:-1]:
        here = here / part
        if here.is_symlink():
            original = here.resolve()
            here.unlink()
            here.mkdir()
            for entry in original.iterdir():
                (here / entry.name).symlink_to(entry)
    target = here / Path(name).name
    target.unlink()
    target.write_text(with_ports((ROOT / name).read_text(), ports))


def outputs(printed: str) -> dict[str, str]:
    """What was printed after each mark, by the mark's name."""
    found: dict[str, str] = {}
    pieces = re.split(rf"^{MARK} (\S+)$", printed, flags=re.M)
    for name, text in zip(pieces[1::2], pieces[2::2]):
        found[name] = text
    return found


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def matches(expected: str, printed: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in squeezed(expected).split("..."))
    return re.fullmatch(pattern, squeezed(printed), flags=re.S) is not None


def scratch_directory() -> Path:
    """A directory that links every top-level entry of the checkout."""
    scratch = Path(tempfile.mkdtemp(prefix="cr-doc-"))
    for entry in ROOT.iterdir():
        if entry.name != ".git":
            (scratch / entry.name).symlink_to(entry)
    return scratch


@pytest.fixture(scope="module")
def service() -> Iterator[Instance]:
    with RedisServer() as redis, Instance(redis.url, {"SESSION_QUOTA": "off", "EVENTS_MAX": "2"},
                                          name="docs") as instance:
        yield instance


def run_script(body: str, cwd: Path) -> tuple[int | None, str]:
    """Run a document's script; its background jobs (bots) are stopped when it ends."""
    log = cwd / ".cr-doc-output"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen(["bash", "-c", body], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            code: int | None = proc.wait(DOCUMENT_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            proc.wait(10)
    return code, log.read_text(errors="replace")


def failures(script: Script, code: int | None, printed: str) -> list[str]:
    """What differs between the document and the run: the shown outputs, and the step that failed."""
    name = script.path.relative_to(ROOT)
    found = outputs(printed)
    problems = []
    for index, step in enumerate(script.steps):
        if step.expected is None or str(index) not in found:
            continue
        out = found[str(index)]
        if not matches(step.expected, out):
            problems.append(f"{name}:{step.line}: {step.code.splitlines()[0]}\n  the doc shows: "
                            f"{step.expected.strip()}\n  it printed:    {out.strip()[:1500]}")
    if code != 0:
        marks = [m for m in re.findall(rf"^{MARK} (\d+)", printed, flags=re.M)]
        last = script.steps[int(marks[-1])] if marks else None
        where = f"{name}:{last.line}: {last.code.splitlines()[0]}" if last else str(name)
        what = "did not finish in time" if code is None else f"exited {code}"
        problems.append(f"{where}\n  {what}; its output:\n{printed[-3000:]}")
    return problems


RUNNABLE = [path for path in documents() if script_of(path).steps]


@pytest.mark.parametrize("path", RUNNABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_of_the_document_runs_as_shown(path: Path, service: Instance) -> None:
    script = script_of(path)
    scratch = scratch_directory()
    files = named_files(script)
    ports = port_map("\n".join([path.read_text(), *((ROOT / name).read_text() for name in files)]), service.port)
    for name in files:
        if with_ports((ROOT / name).read_text(), ports) != (ROOT / name).read_text():
            copy_with_ports(scratch, name, ports)
    body = bash_script(script, ports)
    try:
        code, printed = run_script(body, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    problems = failures(script, code, printed)
    assert not problems, "\n\n".join(problems)
    shown = [step for step in script.steps if step.expected is not None]
    assert all(str(script.steps.index(step)) in outputs(printed) for step in shown), "a shown output never ran"


def test_a_block_marked_as_illustration_exists_and_is_code() -> None:
    """Every marker stands right before a fenced block (a stray marker would silently opt out the wrong one)."""
    for path in documents():
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            if line.strip() == ILLUSTRATION:
                following = next((ln for ln in lines[number + 1:] if ln.strip()), "")
                assert following.lstrip().startswith("```"), f"{path.relative_to(ROOT)}:{number + 1}: {following!r}"


def test_the_harness_reads_shown_outputs_and_steps() -> None:
    block = Block("sh", 10, ["X=1   # why", "echo $X |", "  cat", "# 1", "", "# not an output", "echo a \\", "  b"])
    steps = shell_steps(block)
    assert [(s.line, s.expected) for s in steps] == [(10, None), (11, " 1"), (16, None)]
    assert matches('{"a": [1, ...]}', '{"a":[1,2,3]}') and not matches('{"a": [1]}', '{"a":[2]}')


# the specification folder the project was built from, and the machine's checkouts ("/" + "work/": so that
# this file does not name it either)
OUTSIDE_PATHS = re.compile("|".join([r"\bshared/(?:rules/|API\.md|STYLE\.md|PERF-FLOORS\.md)", "/" + "work/",
                                     r"/home/\w"]))


def test_no_file_of_the_project_names_a_path_outside_the_repository() -> None:
    """The docs stand on their own: a ruling is stated where it applies, not cited by a path a reader of the
    project does not have (an engineer's checkout, or the specification folder the project was built from)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    found = []
    for name in listed.stdout.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file() or path.suffix in (".png", ".ico", ".woff2"):
            continue
        text = path.read_text(errors="replace")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in OUTSIDE_PATHS.finditer(text)]
    assert not found, "\n".join(found)


def test_a_difference_names_the_document_the_line_and_both_outputs() -> None:
    script = Script(ROOT / "README.md", [Step(12, "jq -c .to_act game.json", "[1]"), Step(14, "false")])
    printed = f"{MARK} 0\n[2]\n{MARK} 1\n"
    problems = failures(script, 1, printed)
    assert problems[0].startswith("README.md:12: jq -c .to_act game.json")
    assert "the doc shows: [1]" in problems[0] and "it printed:    [2]" in problems[0]
    assert problems[1].startswith("README.md:14: false") and "exited 1" in problems[1]
