"""ag-ui-langgraph serving one plugin's graph, for ``bench_agui`` to compare with ``/agui``.

``python -m bench.agui_incumbent PLUGINS_DIR PLUGIN_ID PORT``: the graph is the one the runtime
runs (``discover`` compiles it with an in-memory checkpointer), served at ``/agent`` by
``ag-ui-langgraph``'s own FastAPI endpoint with its defaults.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langgraph.checkpoint.memory import InMemorySaver

from runtime.discovery import discover

PATH = "/agent"


def main(argv: list[str]) -> None:
    plugins_dir, plugin_id, port = Path(argv[0]), argv[1], int(argv[2])
    graph = discover(plugins_dir, checkpointer=InMemorySaver()).graph(plugin_id)
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, LangGraphAgent(name=plugin_id, graph=graph), PATH)

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(sys.argv[1:])
