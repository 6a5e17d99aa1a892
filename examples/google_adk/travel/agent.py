"""An ADK agent whose long-term memory is hmem.

    adk web examples/google_adk --memory_service_uri=hmem://127.0.0.1:8000   # HMEM_API_KEY set
    python examples/google_adk/run.py                                       # no key needed

The model is Gemini when GOOGLE_API_KEY is set (HMEM_ADK_MODEL picks which), else a
scripted stand-in that answers with what preload_memory showed it."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.models._capabilities import LlmCapabilities
from google.adk.tools import load_memory, preload_memory
from google.genai import types


class EchoMemoryLlm(BaseLlm):
    """No key: replies with the recalled lines it was shown, so the run is readable."""

    model: str = "echo-memory"

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(output_schema_and_tools=False)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        shown = [p.text or "" for c in llm_request.contents for p in c.parts or []]
        memory = next((t for t in shown if "<PAST_CONVERSATIONS>" in t), "")
        lines = memory.split("<PAST_CONVERSATIONS>")[-1].split("</PAST_CONVERSATIONS>")[0]
        answer = f"From memory:{lines.rstrip()}" if lines.strip() else "Noted."
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer)]))


async def remember_session(callback_context: CallbackContext) -> None:
    # the whole session every turn: HmemMemoryService sends only the new events
    await callback_context.add_session_to_memory()


def model() -> BaseLlm | str:
    if os.environ.get("GOOGLE_API_KEY"):
        return os.environ.get("HMEM_ADK_MODEL", "gemini-2.5-flash")
    return EchoMemoryLlm()


root_agent = LlmAgent(
    name="travel",
    model=model(),
    instruction="You help the user with travel. Use what you remember about them.",
    tools=[preload_memory, load_memory],
    after_agent_callback=remember_session,
)
