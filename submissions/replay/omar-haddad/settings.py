import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    base_url: str = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    # Local OpenAI-compatible servers (Ollama, vLLM, LM Studio) accept any key.
    api_key: str = os.environ.get("OPENAI_API_KEY", "sk-local")
    model: str = os.environ.get("MODEL", "gpt-4o-mini")
    max_calls: int = 40
    backoff: tuple[float, ...] = (0.25, 0.5)
    timeout: float = 20.0


settings = Settings()
