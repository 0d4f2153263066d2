"""Inspect: read a fetched LangGraph project statically into an ``Inspection``.

LibCST parses the files; a small abstract interpreter (``evaluate``) follows the code from each
``langgraph.json`` export to the graph it builds: its state schema, input/output/context schemas,
nodes and what they return, edges, structured-output models. The agent's code is never imported
or executed: a module that would write a file when imported writes nothing here. What cannot be
known statically becomes a warning with file and line, never a guess.

Modules: ``modules`` (files and imports), ``values``/``evaluate`` (the interpreter), ``builders``
(``StateGraph`` calls), ``exports`` (one graph), ``state``, ``nodes``, ``returns``,
``structured``, ``strategy``, ``prebuilts`` (library prebuilts' documented shapes),
``inputs``/``proposals``/``defaults`` (required context and input fields, with the values
proposed for them), ``environ`` (variables read), ``readme``. The declared and undeclared
requirements are read by ``generator.dependencies`` (``declared``, ``undeclared``), statically
too.
"""

from __future__ import annotations

from pathlib import Path

from generator.dependencies.declared import dependencies
from generator.dependencies.undeclared import reachable_modules, undeclared
from generator.inspect import builders, prebuilts
from generator.inspect.config import load_config, with_vendored
from generator.inspect.config_files import proposed_files
from generator.inspect.environ import environment_variables
from generator.inspect.evaluate import Handlers, Interpreter
from generator.inspect.exports import inspect_graph
from generator.inspect.modules import Project
from generator.inspect.readme import readme_excerpt
from generator.inspect.tool_servers import tool_servers
from generator.models import Inspection, Source

__all__ = ["inspect_source"]

#: The calls that build graphs, handed to the interpreter so it imports none of their modules.
_HANDLERS = Handlers(
    new_builder=builders.new_builder,
    builder_method=builders.call_method,
    new_swarm=prebuilts.new_swarm,
    new_supervisor=prebuilts.new_supervisor,
)


def inspect_source(
    source: Source, *, config: str | None = None, graph: str | None = None
) -> Inspection:
    """Inspect the project in ``source.path``: every Python graph, or only ``graph``.

    ``config`` picks a ``langgraph.json`` (relative to the source root) when there are several.
    Raises ``AgentImportError`` for input that cannot be inspected at all.
    """
    root = Path(source.path).resolve()
    project_config = load_config(root, config=config, graph=graph)
    project = Project(root, [])
    project.warnings.extend(project_config.warnings)
    declared, vendored = dependencies(project, project_config)
    project_config = with_vendored(root, project_config, vendored)  # before any import is read
    project.import_roots = [root / folder for folder in project_config.import_roots]
    interpreter = Interpreter(project, _HANDLERS)
    graphs = [inspect_graph(interpreter, spec) for spec in project_config.graphs]
    entry_files = [root / spec.path for spec in project_config.graphs]
    agent_code = reachable_modules(project, entry_files)  # read once for what follows
    return Inspection(
        source=source,
        config_file=project_config.config_file,
        config_extra_keys=project_config.extra_keys,
        python_version=project_config.python_version,
        env=project_config.env,
        environment=environment_variables(project, project_config, agent_code),
        tool_servers=tool_servers(project, agent_code),
        proposed_files=proposed_files(project, agent_code),
        import_roots=project_config.import_roots,
        graphs=graphs,
        dependencies=declared
        + undeclared(project, entry_files, declared, project_config.local_packages),
        local_packages=project_config.local_packages,
        readme_excerpt=readme_excerpt(project, root / project_config.folder),
        warnings=project.warnings,
    )
