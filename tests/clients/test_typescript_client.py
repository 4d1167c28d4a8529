"""The TypeScript client (clients/typescript): its types are the contract's, it plays against a served
instance (its own tests, by the README's command), the compiler refuses a malformed move, and the browser
bundle the service serves is a fresh build of it."""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from .conftest import ROOT, run

BUNDLE = ROOT / "service" / "web" / "static" / "client" / "card-referee.js"


def test_its_types_are_openapi_typescripts_of_the_contract(typescript: Path, tmp_path: Path) -> None:
    """src/schema.ts is what openapi-typescript makes of openapi.yaml now (``npm run generate``)."""
    script = json.loads((typescript / "package.json").read_text())["scripts"]["generate"]
    args = [a if a != "src/schema.ts" else str(tmp_path / "schema.ts") for a in shlex.split(script)]
    done = run([str(typescript / "node_modules" / ".bin" / args[0]), *args[1:]], typescript)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "schema.ts").read_text() == (typescript / "src" / "schema.ts").read_text(), \
        "clients/typescript/src/schema.ts is stale: run `npm run generate` there"


def test_it_plays_whole_matches_against_a_served_instance(typescript: Path, service_url: str) -> None:
    """`npm test` (tsc --strict over the sources and tests, then node --test): a Femkort match, a Klaberjass
    deal through openapi-fetch alone, a session's bot loop, a spectator without a token, the event stream as
    it comes and resumed, typed problems, idempotent retries."""
    done = run(["npm", "test", "--silent"], typescript, {"CARD_REFEREE_URL": service_url})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.M)
    failed = re.search(r"^# fail (\d+)$", done.stdout, re.M)
    assert passed and failed and int(passed.group(1)) >= 6 and failed.group(1) == "0", done.stdout[-2000:]


WRONG_MOVES = {
    "an action Femkort does not have": '{ seat: 0, action: "bid", amount: 3 }',
    "a play without its card": '{ seat: 0, action: "play" }',
    "a card that is not a string": '{ seat: 0, action: "play", card: 12 }',
}


def compile_move(typescript: Path, tmp_path: Path, move: str) -> tuple[int, str]:
    source = tmp_path / "app.ts"
    index = (typescript / "src" / "index.js").as_posix()
    source.write_text(f'import type {{ MoveOf }} from "{index}";\n'
                      f'export const move: MoveOf<"femkort"> = {move};\n')
    tsc = str(typescript / "node_modules" / ".bin" / "tsc")
    done = run([tsc, "--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution",
                "nodenext", "--target", "es2022", "--lib", "es2022,dom", str(source)], tmp_path)
    return done.returncode, done.stdout + done.stderr


def test_the_compiler_refuses_a_malformed_move(typescript: Path, tmp_path: Path) -> None:
    code, out = compile_move(typescript, tmp_path, '{ seat: 1, action: "play", card: "TH" }')
    assert code == 0, out  # the control: a well-formed Femkort move compiles
    for what, move in WRONG_MOVES.items():
        code, out = compile_move(typescript, tmp_path, move)
        assert code != 0 and "error TS2322" in out and "app.ts(2," in out, (what, out)


def test_the_served_bundle_is_a_fresh_build(typescript: Path, tmp_path: Path) -> None:
    """service/web/static/client/card-referee.js is what ``npm run bundle`` builds from the sources now."""
    script = json.loads((typescript / "package.json").read_text())["scripts"]["bundle"]
    out = tmp_path / "card-referee.js"
    args = [f"--outfile={out}" if a.startswith("--outfile=") else a for a in shlex.split(script)]
    done = run([str(typescript / "node_modules" / ".bin" / args[0]), *args[1:]], typescript)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == BUNDLE.read_bytes(), "the bundle is stale: run `npm run bundle` in clients/typescript"


def test_the_service_serves_the_bundle(service_url: str) -> None:
    from urllib.request import urlopen

    with urlopen(f"{service_url}/client/card-referee.js") as resp:
        assert resp.headers["Content-Type"].startswith("text/javascript")
        body = resp.read()
    assert body == BUNDLE.read_bytes()
    assert body.startswith(b'"use strict";\nvar CardRefereeClient = (() => {')
