"""A savings FAQ agent over ``MessagesState``: deterministic, offline, and aware of the topic.

The answer to the last human message comes from a fixed table of topics. A question that names no
topic ("and how much can I put in?") continues the topic of the previous turns, which is why the
whole conversation is passed in on every turn.
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from savings_helper.topics import TOPICS, Topic

GREETING = (
    "I can help with ISAs, notice accounts, emergency funds and interest rates. "
    "What would you like to know?"
)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def find_topic(text: str) -> Topic | None:
    """The topic whose keywords the text mentions most, if any."""
    words = _words(text)
    scored = [(len(words & topic.keywords), topic) for topic in TOPICS]
    score, topic = max(scored, key=lambda pair: pair[0])
    return topic if score else None


def current_topic(messages: list[AnyMessage]) -> Topic | None:
    """The topic of the latest human message that named one, newest first."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and (topic := find_topic(str(message.content))):
            return topic
    return None


def answer(state: MessagesState) -> dict[str, list[AnyMessage]]:
    """Answer the last human message, following up on the conversation's topic if needed."""
    messages = state["messages"]
    question = str(messages[-1].content) if messages else ""
    topic = find_topic(question)
    if topic is not None:
        reply = topic.answer
    elif (earlier := current_topic(messages[:-1])) is not None:
        reply = f"Still on {earlier.title}: {earlier.follow_up}"
    else:
        reply = GREETING
    return {"messages": [AIMessage(content=reply)]}


builder = StateGraph(MessagesState)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile(name="savings_helper")
