"""Module → distribution: which package index project provides an imported module.

Most distributions are named like their top-level module. The rest are listed here: renamed
ones (``yaml`` → ``pyyaml``) and namespace packages, where several distributions share a top
folder and the first parts of the module's path name the distribution (``google.oauth2`` →
``google-auth``, ``google.cloud.bigquery`` → ``google-cloud-bigquery``, ``azure.storage.blob``
→ ``azure-storage-blob``). A guess from here is still checked against the configured index
before it is proposed (``generator/dependencies/index.py``).
"""

from __future__ import annotations

import re

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

#: The ``origin`` of a requirement guessed from a module's name (no file of the repository
#: declares it): checked against the package index before it is proposed.
USUAL_NAME = "usual distribution name"
#: The ``origin`` of a requirement an ImportError's ``pip install X`` names.
HINT_ORIGIN = "an ImportError's install hint"
#: ``pip install`` and what follows, with the quote that opens the command, if any.
_PIP = re.compile(r"(?P<open>[`'\"]?)pip3?\s+install\s+(?P<args>[^\n]*)")


#: Modules (a top-level name, or a namespace package's dotted path) whose distribution is not
#: named like them. The longest listed prefix of an imported module wins.
DISTRIBUTIONS = {
    # LangGraph's savers and stores: parts of the ``langgraph`` folder, distributions of their own
    "langgraph.checkpoint.postgres": "langgraph-checkpoint-postgres",
    "langgraph.store.postgres": "langgraph-checkpoint-postgres",
    "langgraph.checkpoint.sqlite": "langgraph-checkpoint-sqlite",
    "langgraph.store.sqlite": "langgraph-checkpoint-sqlite",
    "langgraph.checkpoint.redis": "langgraph-checkpoint-redis",
    "langgraph.store.redis": "langgraph-checkpoint-redis",
    "langgraph.checkpoint.mongodb": "langgraph-checkpoint-mongodb",
    "yaml": "pyyaml",
    "PIL": "pillow",
    "bs4": "beautifulsoup4",
    "dotenv": "python-dotenv",
    "dateutil": "python-dateutil",
    "sklearn": "scikit-learn",
    "cv2": "opencv-python",
    "googleapiclient": "google-api-python-client",
    "google_auth_oauthlib": "google-auth-oauthlib",
    "google_auth_httplib2": "google-auth-httplib2",
    "jwt": "pyjwt",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "fitz": "pymupdf",
    "attr": "attrs",
    "magic": "python-magic",
    "serpapi": "google-search-results",
    "tavily": "tavily-python",
    "pkg_resources": "setuptools",
    "Crypto": "pycryptodome",
    "git": "gitpython",
    "github": "pygithub",
    "psycopg2": "psycopg2-binary",
    "duckduckgo_search": "duckduckgo-search",
    "faiss": "faiss-cpu",
    "sentence_transformers": "sentence-transformers",
    "slack_sdk": "slack-sdk",
    "telegram": "python-telegram-bot",
    "discord": "discord-py",
    "zmq": "pyzmq",
    "google.auth": "google-auth",
    "google.oauth2": "google-auth",
    "google.protobuf": "protobuf",
    "google.api_core": "google-api-core",
    "google.api": "googleapis-common-protos",
    "google.rpc": "googleapis-common-protos",
    "google.type": "googleapis-common-protos",
    "google.longrunning": "googleapis-common-protos",
    "google.genai": "google-genai",
    "google.generativeai": "google-generativeai",
    "google.adk": "google-adk",
    "google.ai.generativelanguage": "google-ai-generativelanguage",
    "google.resumable_media": "google-resumable-media",
    "azure.storage.filedatalake": "azure-storage-file-datalake",
    "azure.storage.fileshare": "azure-storage-file-share",
    "opentelemetry.trace": "opentelemetry-api",
    "opentelemetry.context": "opentelemetry-api",
    "opentelemetry.metrics": "opentelemetry-api",
    "opentelemetry.propagate": "opentelemetry-api",
    "opentelemetry.baggage": "opentelemetry-api",
}
#: Namespace packages: how many parts of a module's path name its distribution, by the longest
#: matching prefix (``azure.ai.inference.models`` → ``azure.ai.inference``).
NAMESPACE_DEPTH = {
    "google": 2,
    "google.cloud": 3,
    "google.ai": 3,
    "azure": 2,
    "azure.ai": 3,
    "azure.storage": 3,
    "azure.search": 3,
    "azure.keyvault": 3,
    "azure.mgmt": 3,
    "azure.monitor": 3,
    "azure.communication": 3,
    "azure.data": 3,
    "azure.cognitiveservices": 3,
    "azure.messaging": 3,
    "opentelemetry": 2,
    "opentelemetry.instrumentation": 3,
    "opentelemetry.exporter": 3,
}


def is_namespace(top: str) -> bool:
    """Whether several distributions share the top-level folder ``top``."""
    return top in NAMESPACE_DEPTH


def module_of(dotted: str) -> str:
    """The part of an imported module's path that names its distribution: the top-level name,
    a listed prefix, or a namespace package's first parts (``google.oauth2.credentials`` →
    ``google.oauth2``)."""
    parts = dotted.split(".")
    listed = next(
        (size for size in range(len(parts), 0, -1) if ".".join(parts[:size]) in DISTRIBUTIONS),
        None,
    )
    return ".".join(parts[: listed or _depth(parts)])


def needs_more_parts(dotted: str) -> bool:
    """Whether ``dotted`` stops inside a namespace (``from google import genai``: the imported
    names complete it)."""
    parts = dotted.split(".")
    return module_of(dotted) not in DISTRIBUTIONS and _depth(parts) > len(parts)


def _depth(parts: list[str]) -> int:
    for size in range(len(parts), 0, -1):
        if (prefix := ".".join(parts[:size])) in NAMESPACE_DEPTH:
            return NAMESPACE_DEPTH[prefix]
    return 1


def distribution(module: str) -> str:
    """The canonical name of the distribution that usually provides ``module`` (a value of
    ``module_of``)."""
    return canonicalize_name(DISTRIBUTIONS.get(module, module.replace(".", "-")))


def pip_install_specs(text: str) -> list[str]:
    """The requirements a ``pip install`` hint in ``text`` names, options dropped: every quoted
    one (``pip install -U ddgs`` in backticks), or the first bare word (``pip install foo to
    use bar`` names only ``foo``). Names of the package index only: a URL or path ends it."""
    specs = []
    for match in _PIP.finditer(text):
        quoted = bool(match["open"])
        args = match["args"].partition(match["open"])[0] if quoted else match["args"]
        for word in args.split():
            word = word.strip("`'\".,;:()")
            if not word or word.startswith("-"):
                continue
            try:
                if Requirement(word).url is not None:  # a package index name only, never a URL
                    break
            except InvalidRequirement:
                break
            specs.append(word)
            if not quoted:
                break
    return specs
