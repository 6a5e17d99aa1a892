"""LlamaIndex: ``HmemMemoryBlock``, a long-term ``BaseMemoryBlock`` over hmem, in the
place of LlamaIndex's ``VectorMemoryBlock`` (the same parameters, without a vector
store or an embedding model: hmem stores and embeds).

    from llama_index.core.memory import Memory
    from hmem.faces.adapters.llama_index import HmemMemoryBlock

    memory = Memory.from_defaults(
        session_id="s1", token_limit=4000,
        memory_blocks=[HmemMemoryBlock(backend=hmem.AsyncClient(url, api_key=key), user_id="maya")],
    )
    agent.run("...", memory=memory)

| LlamaIndex               | hmem                                                             |
|--------------------------|------------------------------------------------------------------|
| ``_aget(messages)``      | ``search`` with the text of the last ``retrieval_context_window``|
|                          | messages, ``similarity_top_k`` hits (hmem's relevance: nothing   |
|                          | when nothing matches), each a node (its dated line: when true,   |
|                          | replaced or not) through ``node_postprocessors`` and             |
|                          | ``format_template`` into the ``<memory>`` part of the prompt     |
| ``_aput(messages)``      | the batch as it was given (every role, questions and answers),   |
|                          | one fact in ``VectorMemoryBlock``'s form                         |
|                          | (``<message role='user'>``); with a language model on the hmem   |
|                          | side also ``add`` (the extractor infers facts, dates and what    |
|                          | they replace), beside the verbatim batch, not instead of it      |

LlamaIndex calls ``_aput`` only with messages flushed out of the short-term FIFO
(``token_limit`` × ``chat_history_token_ratio``): a small ``token_limit`` writes soon,
the default (30,000 tokens) late. ``await block.aput(messages, session_id=...)`` writes
at once. The user is ``user_id``, fixed at construction; ``agent_id`` and ``run_id``
scope the block as mem0's LlamaIndex memory does (an agent's, a run's own memory of the
user: the hmem user ``scoped_user(user_id, agent_id=..., run_id=...)``, ``memory_user``),
so another agent or run never reads it. hmem's write policy holds (a secret is refused
with ``hmem.errors.PolicyRefusal``, nothing stored). A retrieval is time-boxed
(``recall_timeout``): hmem down or slow = no memories and a warning, never a failed turn.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, PrivateAttr, field_validator

from hmem.errors import ModelNotConfiguredError
from hmem.faces.adapters._core import RECALL_TIMEOUT, Port, fail_open, missing, scoped_user
from hmem.faces.adapters._turns import Turn, TurnWriter, hit_line
from hmem.recall.models import SearchResult

try:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
    from llama_index.core.memory.memory import BaseMemoryBlock
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.prompts import BasePromptTemplate, PromptTemplate, RichPromptTemplate
    from llama_index.core.schema import NodeWithScore, TextNode
except ImportError as exc:  # the framework is the llama-index extra
    raise missing("llama-index-core", "llama-index") from exc

__all__ = ["HmemMemoryBlock"]

SOURCE = "llama-index"
HEADER = "Memories about the user (hmem; dates: when true; replaced = no longer true):"


def _text(message: ChatMessage) -> str:
    """A message's text, as ``VectorMemoryBlock`` reads it (its text blocks)."""
    return "".join(b.text for b in message.blocks if isinstance(b, TextBlock))


class HmemMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory of one user in hmem."""

    name: str = "hmem"
    description: str | None = "What hmem remembers about the user, with dates."
    user_id: str
    similarity_top_k: int = Field(default=10, ge=1, description="hits per retrieval")
    retrieval_context_window: int = Field(
        default=5, description="how many of the last messages make the query"
    )
    format_template: BasePromptTemplate = Field(
        default=RichPromptTemplate(HEADER + "\n{{ text }}"),
        description="how the retrieved lines are put into the prompt ({{ text }})",
    )
    node_postprocessors: list[BaseNodePostprocessor] = Field(default_factory=list)
    backend: Any = Field(exclude=True, description="a hmem.Memory, Client or AsyncClient")
    extract: bool | None = Field(
        default=None, description="hmem's extractor: None = when the backend has a model"
    )
    agent_id: str | None = Field(default=None, description="an agent's own memory of the user")
    run_id: str | None = Field(default=None, description="one run's own memory of the user")
    recall_timeout: float = Field(
        default=RECALL_TIMEOUT, gt=0, description="seconds a retrieval may take"
    )
    _memory_user: str = PrivateAttr()
    _port: Port = PrivateAttr()
    _writer: TurnWriter = PrivateAttr()
    _model_free: bool = PrivateAttr(default=False)

    @field_validator("format_template", mode="before")
    @classmethod
    def _template(cls, value: Any) -> Any:
        if isinstance(value, str):
            return RichPromptTemplate(value) if "{{" in value else PromptTemplate(value)
        return value

    def model_post_init(self, context: Any) -> None:
        self._memory_user = scoped_user(self.user_id, agent_id=self.agent_id, run_id=self.run_id)
        self._port = Port(self.backend)
        # the writer insists on the extractor; model-free is decided here (_aput)
        self._writer = TurnWriter(self._port, source=SOURCE, extract=True)
        # an embedded Memory says whether it has a model; a client tells on first write
        embedded = getattr(self.backend, "extraction_configured", None)
        self._model_free = self.extract is False or (self.extract is None and embedded is False)

    @property
    def memory_user(self) -> str:
        """The hmem user this block reads and writes (``user_id``, scoped by
        ``agent_id`` / ``run_id`` when given)."""
        return self._memory_user

    async def _aget(
        self,
        messages: list[ChatMessage] | None = None,
        session_id: str | None = None,
        **block_kwargs: Any,
    ) -> str:
        messages = messages or []
        window = self.retrieval_context_window
        context = messages[-window:] if window > 1 and len(messages) >= window else messages
        query = " ".join(t for t in (_text(m) for m in context) if t)
        if not query.strip():
            return ""
        found: SearchResult | None = await fail_open(
            self._port.acall("search", query, user_id=self._memory_user, k=self.similarity_top_k),
            timeout=self.recall_timeout,
        )
        if found is None:
            return ""
        nodes = [
            NodeWithScore(node=TextNode(id_=hit.fact.id, text=hit_line(hit)), score=hit.score)
            for hit in found.hits[: self.similarity_top_k]
        ]
        if not nodes:
            return ""
        for postprocessor in self.node_postprocessors:
            nodes = await postprocessor.apostprocess_nodes(nodes, query_str=query)
        text = "\n".join(f"- {n.node.get_content()}" for n in nodes)
        return str(self.format_template.format(text=text))

    async def _aput(self, messages: list[ChatMessage]) -> None:
        said = [(m, _text(m)) for m in messages]
        said = [(m, text) for m, text in said if text.strip()]
        if not said:
            return
        # As given, every role, in VectorMemoryBlock's form: one fact per batch
        batch = "\n".join(f"<message role='{m.role.value}'>{text}</message>" for m, text in said)
        await self._port.acall(
            "remember",
            batch,
            user_id=self._memory_user,
            source=SOURCE,
            # with the extractor beside it, the verbatim batch closes nothing itself;
            # model-free, hmem's plain-text inference reads it (the default)
            infer=None if self._model_free else False,
        )
        if self._model_free:
            return
        sessions = {m.additional_kwargs.get("session_id") for m, _ in said}
        session = next(iter(sessions)) if len(sessions) == 1 else None
        turns = [
            Turn("user" if m.role == MessageRole.USER else "assistant", text)
            for m, text in said
            if m.role in (MessageRole.USER, MessageRole.ASSISTANT)
        ]
        try:  # the extractor's facts, beside the verbatim batch
            await self._writer.write(self._memory_user, turns, session_id=session)
        except ModelNotConfiguredError:
            if self.extract:
                raise
            self._model_free = True  # the backend has no model: the batch as given only
