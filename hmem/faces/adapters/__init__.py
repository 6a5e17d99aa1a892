"""Adapters that plug hmem into agent frameworks, one module per framework.

Nothing is imported here: each module imports its framework when it is imported itself,
and says which extra to install when the framework is missing (``hmem.faces.adapters.<name>``)::

    langgraph        HmemStore (a LangGraph BaseStore)              hmem[langgraph]
    pydantic_ai      hmem_toolset, hmem_instructions,
                     HmemMemory (a capability)                      hmem[pydantic-ai]
    openai_agents    hmem_tools, hmem_input_filter, HmemSession     hmem[openai-agents]
    google_adk       HmemMemoryService                              hmem[google-adk]
    crewai           HmemCrewMemory, tools                          hmem[crewai]
    agent_framework  HmemContextProvider                            hmem[agent-framework]
    autogen          HmemMemory                                     hmem[autogen]
    llama_index      HmemMemoryBlock                                hmem[llama-index]

Every adapter takes a backend: an embedded ``hmem.Memory``, a ``hmem.Client`` or a
``hmem.AsyncClient`` (the same method names). The user always comes from the
framework's own identity (a namespace, the run's deps or context, a session's user),
never from an argument a model fills in; no adapter offers erasure.
"""
