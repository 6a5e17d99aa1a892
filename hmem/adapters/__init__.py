"""Adapters that plug hmem into agent frameworks, one module per framework.

Nothing is imported here: each module imports its framework when it is imported itself,
and says which extra to install when the framework is missing::

    hmem.adapters.langgraph       HmemStore (a LangGraph BaseStore)        hmem[langgraph]
    hmem.adapters.pydantic_ai     hmem_toolset, hmem_instructions,
                                  HmemMemory (a capability)                hmem[pydantic-ai]
    hmem.adapters.openai_agents   hmem_tools, hmem_input_filter,
                                  HmemSession                              hmem[openai-agents]
    hmem.adapters.google_adk      HmemMemoryService                        hmem[google-adk]
    hmem.adapters.crewai          HmemCrewMemory, tools                    hmem[crewai]
    hmem.adapters.agent_framework HmemContextProvider                      hmem[agent-framework]
    hmem.adapters.autogen         HmemMemory                               hmem[autogen]
    hmem.adapters.llama_index     HmemMemoryBlock                          hmem[llama-index]

Every adapter takes a backend: an embedded ``hmem.Memory``, a ``hmem.Client`` or a
``hmem.AsyncClient`` (the same method names). The user always comes from the
framework's own identity (a namespace, the run's deps or context, a session's user),
never from an argument a model fills in; no adapter offers erasure.
"""
