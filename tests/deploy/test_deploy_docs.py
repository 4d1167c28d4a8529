"""The deployment docs work as written: the image the docs build is the image the kustomization runs, the
Secret snippet sets every key it needs, the build context is only what the image needs, the lock file pins
what pyproject.toml asks for. (The README's walk-throughs, the session one included, are run with every other
documented example by tests/docs/test_doc_examples.py.)

Each of these was wrong before (issue 15): the manifests ran ``card-referee:latest`` while the docs pushed
another name (ImagePullBackOff), the Secret snippet used a variable it never set (sealing silently off) and
had no STATE_TAG_KEY, the context held the whole .venv, nothing pinned the image's packages, and the README
played a card of the seeded example in a session dealt from another seed.
"""
from __future__ import annotations

import base64
import fnmatch
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from service.config import Config

ROOT = Path(__file__).resolve().parents[2]
DEPLOYMENT_DOC = (ROOT / "docs" / "deployment.md").read_text()
KUBECTL = shutil.which("kubectl")


def shell_blocks(markdown: str) -> list[str]:
    """The ```sh blocks of a Markdown text, unindented."""
    blocks = re.findall(r"^( *)```sh\n(.*?)^\1```", markdown, flags=re.S | re.M)
    return ["\n".join(line[len(indent):] for line in body.splitlines()) for indent, body in blocks]


def block_with(markdown: str, needle: str) -> str:
    found = [b for b in shell_blocks(markdown) if needle in b]
    assert len(found) == 1, f"expected one sh block with {needle!r}, found {len(found)}"
    return found[0]


# ----- the image ------------------------------------------------------------------------
def documented_image() -> str:
    match = re.search(r"^IMAGE=(\S+)$", block_with(DEPLOYMENT_DOC, "docker build"), flags=re.M)
    assert match, "docs/deployment.md builds no $IMAGE"
    return match.group(1)


def rendered_images(kustomization_dir: Path) -> dict[str, list[str]]:
    """Each workload's container images as kustomize renders them: ``images:`` applied to the resources
    (name matched without tag or digest; newName and newTag replace their parts)."""
    kustom = yaml.safe_load((kustomization_dir / "kustomization.yaml").read_text())
    rules = {rule["name"]: rule for rule in kustom.get("images", [])}
    out: dict[str, list[str]] = {}
    for resource in kustom["resources"]:
        for doc in yaml.safe_load_all((kustomization_dir / resource).read_text()):
            if not doc or "template" not in doc.get("spec", {}):
                continue
            images = []
            for container in doc["spec"]["template"]["spec"]["containers"]:
                name, _, tag = container["image"].partition(":")
                rule = rules.get(name)
                if rule is not None:
                    name, tag = rule.get("newName", name), rule.get("newTag", tag)
                images.append(f"{name}:{tag}" if tag else name)
            out[doc["metadata"]["name"]] = images
    return out


def test_the_kustomization_runs_the_image_the_docs_build_and_push() -> None:
    image = documented_image()
    assert f'docker build -f deploy/Dockerfile -t "$IMAGE" . && docker push "$IMAGE"' in DEPLOYMENT_DOC
    images = rendered_images(ROOT / "deploy" / "k8s")
    assert images["card-referee"] == [image]
    assert images["card-referee-redis"] == ["redis:7-alpine"]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed (the rendering above still ran)")
def test_kubectl_renders_the_same_images() -> None:
    assert KUBECTL is not None
    out = subprocess.run([KUBECTL, "kustomize", str(ROOT / "deploy" / "k8s")], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    rendered: dict[str, list[str]] = {}
    for doc in yaml.safe_load_all(out):
        if doc and "template" in doc.get("spec", {}):
            rendered[doc["metadata"]["name"]] = [c["image"] for c in doc["spec"]["template"]["spec"]["containers"]]
    assert rendered == rendered_images(ROOT / "deploy" / "k8s")
    assert rendered["card-referee"] == [documented_image()]


# ----- the Secret -------------------------------------------------------------------------
def test_the_secret_snippet_sets_every_variable_it_uses_and_every_key() -> None:
    snippet = block_with(DEPLOYMENT_DOC, "kubectl create secret")
    used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", snippet))
    assigned = set(re.findall(r"^([A-Za-z_][A-Za-z0-9_]*)=", snippet, flags=re.M))
    assert used <= assigned, f"the snippet uses {used - assigned} without setting them"
    for key in ("REDIS_URL", "SEALING_KEY", "STATE_TAG_KEY"):
        assert f"--from-literal={key}=" in snippet


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed (the static check above still ran)")
def test_the_secret_snippet_writes_a_secret_the_service_starts_with(tmp_path: Path) -> None:
    snippet = block_with(DEPLOYMENT_DOC, "kubectl create secret").replace("deploy/k8s/secret.yaml",
                                                                           str(tmp_path / "secret.yaml"))
    subprocess.run(["bash", "-euo", "pipefail", "-c", snippet], check=True, timeout=60, cwd=ROOT,
                   env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    secret = yaml.safe_load((tmp_path / "secret.yaml").read_text())
    env = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert set(env) == {"REDIS_URL", "SEALING_KEY", "STATE_TAG_KEY"}
    config = Config.from_env(env)
    assert config.sealing_key is not None and config.state_tag_key is not None
    assert config.sealing_key != config.state_tag_key


# ----- the build context and the lock ---------------------------------------------------
def docker_ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore leaves ``path`` out of the build context: the last pattern matching the path or
    one of its parent directories decides; ``!`` lets it back in (Docker's rules, for the forms used here)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    ignored = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        body = pattern.lstrip("!").rstrip("/")
        body = body[3:] if body.startswith("**/") else body
        if any(fnmatch.fnmatchcase(p, body) or fnmatch.fnmatchcase(p.rsplit("/", 1)[-1], body)
               and pattern.lstrip("!").startswith("**/") for p in prefixes):
            ignored = not negated
    return ignored


def test_the_build_context_is_only_what_the_image_copies() -> None:
    patterns = [ln.strip() for ln in (ROOT / ".dockerignore").read_text().splitlines()
                if ln.strip() and not ln.startswith("#")]
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = [src for line in dockerfile.splitlines() if line.startswith("COPY ") and "--from" not in line
              for src in line.split()[1:-1]]
    assert copied, "the Dockerfile copies nothing from the context"
    for src in copied:
        files = [str(p.relative_to(ROOT)) for p in (ROOT / src).rglob("*.py")] if (ROOT / src).is_dir() else [src]
        for f in files:
            assert not docker_ignored(f, patterns), f"{f} is copied by the Dockerfile but left out of the context"
    for left_out in (".venv/lib/python3.11/site-packages/flask/app.py", ".git/HEAD", "tests/conftest.py",
                     "bench/run.py", ".redis-data/appendonly.aof", "service/__pycache__/app.cpython-311.pyc",
                     "docs/deployment.md"):
        assert docker_ignored(left_out, patterns), f"{left_out} would be sent as build context"


def locked() -> dict[str, tuple[str, int]]:
    """Name -> (pinned version, number of hashes) from requirements.lock."""
    text = (ROOT / "requirements.lock").read_text()
    pins: dict[str, tuple[str, int]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        match = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", block)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = (match.group(2), block.count("--hash=sha256:"))
    return pins


def test_the_lock_pins_every_dependency_within_its_range_with_hashes() -> None:
    project = (ROOT / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)^\]", project, flags=re.S | re.M)
    build = re.search(r"^requires = \[(.*?)\]", project, flags=re.M)
    assert deps and build
    pins = locked()
    for raw in re.findall(r'"([^"]+)"', deps.group(1) + build.group(1)):
        req = Requirement(raw)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not in requirements.lock"
        version, hashes = pins[name]
        assert req.specifier.contains(version, prereleases=True), f"{name}=={version} is outside {req.specifier}"
        assert hashes >= 1, f"{name} has no hash"
    assert all(hashes >= 1 for _, hashes in pins.values())
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "pip install --require-hashes --no-deps -r requirements.lock" in dockerfile
    assert "pip install --no-deps --no-build-isolation ." in dockerfile
