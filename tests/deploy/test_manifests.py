"""Deployment files are checked offline: Kubernetes schemas, compose structure, Dockerfile rules."""
from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
K8S_VERSION = "1.30"
MANIFESTS = sorted(p for p in (DEPLOY / "k8s").glob("*.yaml") if p.name != "kustomization.yaml")


def docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_validates_against_kubernetes_schemas(path: Path) -> None:
    for doc in docs(path):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def _by_kind() -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for path in MANIFESTS:
        for doc in docs(path):
            found.setdefault(doc["kind"], []).append(doc)
    return found


def test_the_manifests_fit_together() -> None:
    kinds = _by_kind()
    for kind in ("Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap", "Secret",
                 "StatefulSet"):
        assert kind in kinds, f"no {kind}"
    deployment = kinds["Deployment"][0]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    refs = {e.get("configMapRef", {}).get("name") or e.get("secretRef", {}).get("name") for e in container["envFrom"]}
    assert refs == {kinds["ConfigMap"][0]["metadata"]["name"], kinds["Secret"][0]["metadata"]["name"]}
    assert set(kinds["Secret"][0]["stringData"]) == {"REDIS_URL", "SEALING_KEY", "STATE_TAG_KEY"}
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    name = deployment["metadata"]["name"]
    for kind in ("Service", "PodDisruptionBudget"):
        selector = next(d for d in kinds[kind] if d["metadata"]["name"] == name)["spec"]["selector"]
        selector = selector.get("matchLabels", selector)
        assert all(labels.get(k) == v for k, v in selector.items()), f"{kind} selects no referee pod"
    assert kinds["HorizontalPodAutoscaler"][0]["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    redis = kinds["StatefulSet"][0]
    assert redis["spec"]["volumeClaimTemplates"] and "--appendonly" in redis["spec"]["template"]["spec"][
        "containers"][0]["args"]
    kustom = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    assert sorted(kustom["resources"]) == sorted(p.name for p in MANIFESTS)


def test_compose_file_structure() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"referee", "redis"}
    referee, redis = services["referee"], services["redis"]
    assert referee["build"]["dockerfile"] == "deploy/Dockerfile"
    assert referee["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert referee["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "--appendonly" in redis["command"] and "yes" in redis["command"]
    volume = redis["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]


def _stages(text: str) -> list[list[str]]:
    lines = re.sub(r"\\\n", " ", text).splitlines()
    instructions = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
    stages: list[list[str]] = []
    for ins in instructions:
        if ins.upper().startswith("FROM "):
            stages.append([])
        assert stages, "the Dockerfile must start with FROM"
        stages[-1].append(ins)
    return stages


def test_dockerfile_rules() -> None:
    stages = _stages((DEPLOY / "Dockerfile").read_text())
    assert len(stages) >= 2, "a build stage and a runtime stage"
    final = stages[-1]
    assert re.match(r"FROM python:3\.\d+-slim", final[0]), "a slim Python base"
    keywords = [ins.split()[0].upper() for ins in final]
    for needed in ("USER", "HEALTHCHECK", "EXPOSE", "CMD"):
        assert needed in keywords, f"the runtime stage lacks {needed}"
    user = next(ins for ins in final if ins.upper().startswith("USER ")).split()[1]
    assert user.split(":")[0] not in ("root", "0"), "the service must not run as root"
    runs = " ".join(ins for ins in final if ins.upper().startswith("RUN "))
    for tool in ("gcc", "build-essential", "make ", "apt-get install"):
        assert tool not in runs, f"{tool} in the final image"
    assert "gunicorn" in final[-1] and "service.app:create_app()" in final[-1]
    for ins in final:
        if ins.upper().startswith("COPY ") and "--from" not in ins:
            assert ".venv" not in ins
