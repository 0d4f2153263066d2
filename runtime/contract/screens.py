"""The screens of an imported plugin, and the data model they bind to.

The generator designs these four screens and checks their bindings; ``ImportedPlugin`` shows them
and publishes its domain state (``state["domain"][plugin_id]``) as the surface's data model:

* ``/question``: what the user last asked (text of the input field);
* ``/answer``: the agent's answer (text of the output field; the last AI message for agents that
  speak in messages);
* ``/error``: what went wrong, on the error screen;
* ``/state/<field>``: a field of the agent's state as the agent last returned it.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

ScreenName = Literal["welcome", "collecting", "result", "error"]
SCREEN_NAMES: Final[tuple[ScreenName, ...]] = get_args(ScreenName)

#: What each screen is for (told to the design model, shown in summaries).
SCREEN_PURPOSES: Final[dict[ScreenName, str]] = {
    "welcome": "first turn: who the agent is, what it does, what the user can say",
    "collecting": "while the agent works on the user's request",
    "result": "the agent's answer, bound to /answer, with useful state fields",
    "error": "the agent failed; bound to /error, offers to try again",
}

#: The actions every imported plugin handles; screens send them as ``<plugin_id>.<name>``.
STANDARD_ACTIONS: Final[dict[str, str]] = {
    "restart": "start again from the welcome screen",
    "retry": "run the user's last request again",
}
#: The action of a "continue" button on a screen shown at a static breakpoint.
CONTINUE: Final = "continue"

QUESTION_KEY: Final = "question"
ANSWER_KEY: Final = "answer"
ERROR_KEY: Final = "error"
#: The data model's text keys (see above), each a string.
DATA_MODEL_TEXT_KEYS: Final = (QUESTION_KEY, ANSWER_KEY, ERROR_KEY)
#: The data model's key holding the agent's state fields.
STATE_KEY: Final = "state"
