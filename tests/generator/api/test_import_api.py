"""``POST /api/import-agent`` and its status over real HTTP: every answer the API gives.

The runtime serves a temporary clone's plugins (``repo``); imports write there and nowhere else.
Designs are offline unless a test starts the fake Bedrock endpoint.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from generator.render.claim import Claim
from runtime.contract.layout import PLUGINS_FOLDER
from runtime.isolated.pythons import PLACES_ENV
from runtime.testing.client import RuntimeClient
from tests.generator.api.import_api_fixtures import SAVINGS_HELPER, Server
from tests.generator.design.fake_bedrock import text_answer
from tests.generator.plugin_repo import (
    ROOT,
    agent_repo,
    echo_agent,
    needs_dependency_agent,
    pyproject,
    tree,
    write_files,
)

SCREENS = ["welcome", "collecting", "result", "error"]
#: The start of a PNG file: not UTF-8 text.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

#: Each test runs a real import or two (render and validate in subprocesses): slow on a busy box.
pytestmark = pytest.mark.timeout(600)


def _import(client: httpx.Client, **body: Any) -> httpx.Response:
    values = {"url": SAVINGS_HELPER, "plugin_id": "savings", "design": "offline", **body}
    return client.post("/api/import-agent", json=values)


def _poll(client: httpx.Client, job_id: str, until: str = "DONE") -> dict[str, Any]:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        status: dict[str, Any] = client.get(f"/api/import-agent/status/{job_id}").json()
        if status["state"] in (until, "DONE", "ERROR"):
            return status
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not reach {until}")


def test_dry_run_answers_the_files_as_strings_and_writes_nothing(
    server: Server, repo: Path, tmp_path: Path
) -> None:
    agent = Path(shutil.copytree(SAVINGS_HELPER, tmp_path / "agent"))
    (agent / "logo.png").write_bytes(PNG)
    before = tree(repo / PLUGINS_FOLDER)
    with server() as client:
        answer = _import(client, url=str(agent), dry_run=True)

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {
        "status", "plugin_id", "files_written", "validation", "llm_reasoning", "screens",
        "job_id", "files", "binary_files",
    }  # fmt: skip
    assert (body["status"], body["plugin_id"], body["files_written"]) == ("ok", "savings", [])
    assert body["validation"] == {"import_ok": True, "smoke_test_ok": True}
    assert list(body["screens"]) == SCREENS
    assert body["llm_reasoning"]
    assert json.loads(body["files"]["screens/result.json"]) == body["screens"]["result"]
    assert "class " in body["files"]["plugin.py"]
    assert all(isinstance(text, str) for text in body["files"].values())
    assert body["binary_files"] == ["src/logo.png"]
    assert tree(repo / PLUGINS_FOLDER) == before


def test_import_writes_the_plugin_and_serves_it_at_once(server: Server, repo: Path) -> None:
    with server() as client:
        answer = _import(client)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        status = client.get(f"/api/import-agent/status/{body['job_id']}").json()
        plugins = client.get("/plugins").json()
        address = str(client.base_url).removeprefix("http://")
        with RuntimeClient(address, agent="savings") as chat:
            chat.receive_turn()
            frames = chat.say("What is an ISA?")

    folder = repo / PLUGINS_FOLDER / "savings"
    assert "runtime/plugins/savings/plugin.py" in body["files_written"]
    assert all((repo / path).is_file() for path in body["files_written"])
    assert "files" not in body and "binary_files" not in body  # contents only for a dry run
    assert (
        json.loads((folder / "screens" / "welcome.json").read_text()) == body["screens"]["welcome"]
    )
    assert (status["state"], status["served"], status["serve_hint"]) == ("DONE", True, None)
    assert "savings" in plugins["plugins"]
    voice = [f["payload"]["text"] for f in frames if f["type"] == "server.voice.say"]
    assert any("ISA" in line for line in voice), frames


def test_wait_false_answers_202_then_the_status_follows_the_steps(server: Server) -> None:
    with server() as client:
        accepted = _import(client, wait=False, dry_run=True)
        assert accepted.status_code == 202
        job_id = accepted.json()["job_id"]
        status = _poll(client, job_id)

    assert accepted.json()["status_url"] == f"/api/import-agent/status/{job_id}"
    assert status["state"] == "DONE"
    assert status["history"] == [
        "IDLE", "FETCHING", "PARSED", "DESIGNING", "PREVIEW", "VALIDATING", "DONE",
    ]  # fmt: skip
    assert [s["name"] for s in status["steps"]] == [
        "fetch", "inspect", "design", "render", "dependencies", "validate",
    ]  # fmt: skip
    assert all(s["seconds"] >= 0 for s in status["steps"])
    assert status["stream"] == status["result"]["llm_reasoning"]  # offline: at once
    assert status["design"]["provenance"]["mode"] == "fallback"
    assert status["result"]["job_id"] == job_id


def test_streamed_design_output_is_visible_while_the_model_works(
    server: Server, fake_bedrock: Any
) -> None:
    from generator.inspect import inspect_source
    from generator.models import Source
    from tests.generator.design.design_helpers import model_answer

    inspection = inspect_source(Source(url=SAVINGS_HELPER, path=SAVINGS_HELPER))
    answer = model_answer(inspection, "savings")
    answer["reasoning"] = "Savers want the answer first, so the result screen leads with it."
    text = json.dumps(answer)
    sonnet = text_answer(text)
    sonnet.chunks, sonnet.chunk_delay = 20, 0.15
    fake = fake_bedrock(haiku=[text_answer("not used")], sonnet=[sonnet])

    with server() as client:
        job_id = _import(client, design="bedrock", wait=False, dry_run=True).json()["job_id"]
        seen: list[str] = []
        while (status := client.get(f"/api/import-agent/status/{job_id}").json())["state"] in (
            "FETCHING", "PARSED", "DESIGNING",
        ):  # fmt: skip
            if status["state"] == "DESIGNING" and status["stream"]:
                seen.append(status["stream"])
            time.sleep(0.05)
        final = _poll(client, job_id)

    assert final["state"] == "DONE", final["error"]
    assert final["design"]["provenance"]["mode"] == "bedrock"
    assert final["result"]["llm_reasoning"] == answer["reasoning"]
    assert final["stream"] == text
    partial = [s for s in seen if len(s) < len(text)]
    assert len(set(partial)) >= 3, "the stream should grow while the model writes"
    assert all(text.startswith(s) for s in seen)
    assert fake.requests_to("sonnet")[0].path.endswith("/converse-stream")


def test_edited_design_lands_in_the_written_screen_file(server: Server, repo: Path) -> None:
    with server() as client:
        preview = _import(client, dry_run=True, wait=False).json()
        design = _poll(client, preview["job_id"])["design"]
        title = next(c for c in design["welcome"]["components"] if c["component"] == "Text")
        title["text"] = "Hello from the wizard"
        answer = _import(client, edited_design=design)

    assert answer.status_code == 200, answer.text
    written = json.loads(
        (repo / PLUGINS_FOLDER / "savings" / "screens" / "welcome.json").read_text()
    )
    assert "Hello from the wizard" in json.dumps(written)
    assert answer.json()["screens"]["welcome"] == written


def test_edited_design_with_a_bad_screen_is_422_naming_it(server: Server, repo: Path) -> None:
    with server() as client:
        preview = _import(client, dry_run=True, wait=False).json()
        design = _poll(client, preview["job_id"])["design"]
        design["result"]["components"][0]["colour"] = "red"
        answer = _import(client, edited_design=design)

    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error.startswith("edited_design: invalid design, 1 problem: result: component 'root'")
    assert "'colour'" in error and "\n" not in error
    assert not (repo / PLUGINS_FOLDER / "savings").exists()


def test_unknown_job_is_404(server: Server) -> None:
    with server() as client:
        answer = client.get("/api/import-agent/status/nope")
    assert answer.status_code == 404
    assert answer.json() == {"error": "no import job 'nope' (unknown, or finished and expired)"}


def test_finished_jobs_expire(server: Server) -> None:
    with server(import_job_ttl=0.3) as client:
        job_id = _import(client, dry_run=True).json()["job_id"]
        assert client.get(f"/api/import-agent/status/{job_id}").status_code == 200
        time.sleep(0.5)
        assert client.get(f"/api/import-agent/status/{job_id}").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"plugin_id": "Bad-Id"}, 422, "plugin_id: String should match pattern"),
        ({"strategy": "teleport"}, 422, "strategy: Input should be 'wrapper', 'subgraph'"),
        ({"design": "psychic"}, 422, "design: Input should be 'bedrock' or 'offline'"),
        ({"surprise": 1}, 422, "surprise: Extra inputs are not permitted"),
        ({"url": "/no/such/folder"}, 400, "'/no/such/folder': no such folder"),
        ({"url": str(ROOT / "docs")}, 400, "no langgraph.json"),
    ],
)
def test_bad_input_is_one_line(
    server: Server, body: dict[str, Any], status: int, error: str
) -> None:
    with server() as client:
        answer = _import(client, **body)
    assert answer.status_code == status, answer.text
    assert error in answer.json()["error"]
    assert "\n" not in answer.json()["error"]


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        (r"./a\u0000b.py:graph", r"langgraph.json: graph 'agent' file 'a\x00b.py' holds a NUL"),
        (r"./\ud800.py:graph", r"langgraph.json: './\ud800.py:graph' holds a lone surrogate"),
    ],
    ids=["nul", "lone-surrogate"],
)
def test_a_graph_spec_that_is_no_file_name_is_400(
    server: Server, tmp_path: Path, spec: str, error: str
) -> None:
    agent = write_files(
        tmp_path / "agent", {"langgraph.json": f'{{"graphs": {{"agent": "{spec}"}}}}'}
    )
    with server() as client:
        inspected = client.post("/api/import-agent/inspect", json={"url": str(agent)})
        imported = _import(client, url=str(agent), dry_run=True)

    for answer in (inspected, imported):
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"].startswith(error)


def test_bad_url_is_400(server: Server) -> None:
    with server() as client:
        answer = _import(client, url="https://127.0.0.1:9/nothing-here.git")
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("cannot fetch https://127.0.0.1:9/nothing-here.git")


def test_body_that_is_not_json_is_400(server: Server) -> None:
    with server() as client:
        not_json = client.post(
            "/api/import-agent", content=b"{", headers={"content-type": "application/json"}
        )
        form = client.post("/api/import-agent", data={"url": SAVINGS_HELPER})
    assert (not_json.status_code, not_json.json()) == (400, {"error": "the body is not JSON"})
    assert form.status_code == 400
    assert form.json()["error"] == "send the body as JSON (Content-Type: application/json)"


def test_validation_failure_is_422_with_the_report(
    server: Server, repo: Path, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "agent", needs_dependency_agent("needs_pkg", "wizardry-x", "wz"))
    with server() as client:
        answer = _import(client, url=str(agent), plugin_id="needs")
        status = client.get(f"/api/import-agent/status/{answer.json()['job_id']}").json()

    assert answer.status_code == 422
    body = answer.json()
    assert body["error"].startswith("the plugin did not validate (module 'wz' is not installed")
    assert body["report"]["missing"]["module"] == "wz"
    assert [c["ok"] for c in body["report"]["checks"]] == [False]
    assert (status["state"], status["error_status"]) == ("ERROR", 422)
    # The diagnosis: what kind of failure, in plain words, and the fix; the same in the status.
    diagnosis = body["diagnosis"]
    assert (diagnosis["kind"], diagnosis["check"]) == ("missing_package", "import")
    assert "--approve-deps" in diagnosis["fix"] and diagnosis["explanation"]
    assert status["diagnosis"] == diagnosis == body["report"]["diagnosis"]
    assert not (repo / PLUGINS_FOLDER / "needs").exists()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the syntax is valid from Python 3.12")
def test_an_agent_whose_code_needs_a_newer_python_is_422_naming_both_versions_and_the_fix(
    server: Server, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PLACES_ENV, "")
    files = echo_agent("newer_pkg")
    files["graph.py"] = "type Lines = list[str]\n" + textwrap.dedent(files["graph.py"])
    files["langgraph.json"] = json.dumps(
        {**json.loads(files["langgraph.json"]), "python_version": "3.99"}
    )
    agent = agent_repo(tmp_path / "agent", files)
    with server() as client:
        job_id = _import(client, url=str(agent), plugin_id="newer", wait=False).json()["job_id"]
        status = _poll(client, job_id)

    assert (status["state"], status["error_status"]) == ("ERROR", 422)
    assert "needs another Python: the agent needs Python 3.99 (" in status["error"]
    assert status["diagnosis"]["kind"] == "needs_python" and status["report"] is not None
    assert "`uv python install 3.99`" in status["diagnosis"]["fix"]
    assert not (repo / PLUGINS_FOLDER / "newer").exists()


def test_a_dry_run_short_of_a_requirement_still_shows_what_it_would_write(
    server: Server, tmp_path: Path
) -> None:
    agent = agent_repo(tmp_path / "agent", needs_dependency_agent("short_pkg", "wizardry-y", "wy"))
    with server() as client:
        job_id = _import(client, url=str(agent), plugin_id="short", dry_run=True, wait=False)
        status = _poll(client, job_id.json()["job_id"])

    assert (status["state"], status["error_status"]) == ("ERROR", 422)
    assert status["report"]["missing"]["module"] == "wy"
    missing = [r["spec"] for r in status["dependencies"]["requirements"] if not r["satisfied"]]
    # The declared requirement, and the module's own name proposed for it (nothing read
    # statically says wizardry-y provides wy): both shown for approval.
    assert missing == ["wizardry-y", "wy"]
    assert "wizardry-y" in status["files"]["requirements.txt"]
    assert status["design"]["plugin_id"] == "short"
    assert status["result"] is None


def test_existing_plugin_is_409_without_force(server: Server, repo: Path) -> None:
    folder = write_files(repo / PLUGINS_FOLDER / "savings", {"__init__.py": "# mine\n"})
    with server() as client:
        refused = _import(client)
        replaced = _import(client, force=True)

    assert refused.status_code == 409
    assert refused.json() == {"error": "plugin 'savings' exists; set force to replace it"}
    assert replaced.status_code == 200, replaced.text
    assert (folder / "__init__.py").read_text() != "# mine\n"


def test_a_plugin_claimed_by_another_process_is_409(server: Server, repo: Path) -> None:
    """A command line (or another worker) importing the same plugin id holds its claim: the
    API's job is refused as another import in this server would be, and writes nothing."""
    with Claim(repo / PLUGINS_FOLDER, "savings"), server() as client:
        refused = _import(client)

    assert refused.status_code == 409
    assert "is being imported or updated by another process" in refused.json()["error"]
    assert not (repo / PLUGINS_FOLDER / "savings").exists()


def test_one_job_per_plugin_and_a_few_at_once(server: Server) -> None:
    with server(import_jobs=2) as client:
        first = _import(client, wait=False, dry_run=True).json()["job_id"]
        same = _import(client, wait=False, dry_run=True)
        second = _import(client, wait=False, dry_run=True, plugin_id="other").json()["job_id"]
        third = _import(client, wait=False, dry_run=True, plugin_id="third")
        _poll(client, first)
        _poll(client, second)
        after = _import(client, wait=False, dry_run=True, plugin_id="third")

    assert same.status_code == 409
    assert same.json()["error"] == "an import of 'savings' is already running"
    assert third.status_code == 429
    assert third.json()["error"] == "2 imports are running (at most 2); try later"
    assert after.status_code == 202


def test_a_runtime_serving_no_repository_cannot_import(server: Server, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "plugins"
    elsewhere.mkdir(parents=True)
    with server(plugins_dir=elsewhere) as client:
        answer = _import(client)
    assert answer.status_code == 503
    assert answer.json()["error"].startswith(
        "imports are unavailable: no repository with copier.yml"
    )


def test_inspect_answers_the_agent_and_its_files(server: Server) -> None:
    with server() as client:
        answer = client.post("/api/import-agent/inspect", json={"url": SAVINGS_HELPER})

    assert answer.status_code == 200, answer.text
    body = answer.json()
    [graph] = body["inspection"]["graphs"]
    assert (graph["graph_id"], graph["strategy"]) == ("savings_helper", "wrapper")
    assert {"langgraph.json", "savings_helper/graph.py", "README.md"} <= set(body["files"])
    assert body["files_truncated"] is False


def test_validate_screen_names_component_and_property(server: Server) -> None:
    screen = json.loads((ROOT / "runtime/a2ui/examples/welcome.json").read_text())
    with server() as client:
        ok = client.post(
            "/api/import-agent/validate-screen", json={"plugin_id": "mortgage", "screen": screen}
        )
        screen["components"][1]["colour"] = "red"
        bad = client.post(
            "/api/import-agent/validate-screen", json={"plugin_id": "mortgage", "screen": screen}
        )
        not_object = client.post(
            "/api/import-agent/validate-screen", json={"plugin_id": "mortgage", "screen": [1]}
        )

    assert ok.json() == {"ok": True, "issues": []}
    [issue] = bad.json()["issues"]
    assert bad.json()["ok"] is False
    assert (issue["component_id"], issue["property"]) == (screen["components"][1]["id"], "colour")
    assert "has no such property" in issue["message"]
    assert not_object.status_code == 422


@pytest.mark.slow
def test_shared_env_refuses_a_conflict_with_the_runtime_in_one_line(
    server: Server, repo: Path, tmp_path: Path
) -> None:
    """``shared_env``: no environment of its own, the conflict refuses the import (PyPI)."""
    files = echo_agent("old_pin_pkg")
    files["pyproject.toml"] = pyproject("old_pin_pkg", "langgraph<0.3")
    agent = agent_repo(tmp_path / "agent", files)
    with server() as client:
        answer = _import(
            client, url=str(agent), plugin_id="pinned", approve_deps=True, shared_env=True
        )

    assert answer.status_code == 400, answer.text  # the agent's input, not its validation
    error = answer.json()["error"]
    assert error.startswith("the requirements of 'pinned' conflict with the runtime's")
    assert "\n" not in error
    assert not (repo / PLUGINS_FOLDER / "pinned").exists()
