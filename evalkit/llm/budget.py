"""A run's budget in dollars (`--max-cost`, `max_cost:`): the client asks it before every call it
sends, and it refuses a call once the dollars spent plus the estimated cost of the calls in flight
and of this one would pass the limit. The first refusal stops the run: no later call is sent, even
a smaller one, so the cases not started yet are reported "not run: budget".

A call is estimated before it is sent from its request: its input tokens as `evalkit plan` counts
them (4 characters a token of the request's JSON body), its output at its `max_tokens`, priced by
evalkit.llm.pricing. A call whose model has no known price is refused: its cost could not be kept
within the budget."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from evalkit.errors import ProviderError, UsageError
from evalkit.llm.pricing import cost_usd
from evalkit.llm.prompt_prefix import CHARS_PER_TOKEN  # one estimate of tokens: plan, prefixes, budget
from evalkit.llm.providers.interface import ModelRequest

# Models whose tokenizer counts more tokens for the same text than the 4-characters rule assumes
# (Anthropic's Haiku 5.5 page: about 30 % more than Haiku 4.5), by model id prefix.
TOKENIZER_FACTOR: tuple[tuple[str, float], ...] = (("claude-haiku-5-5", 1.3),)


def tokenizer_factor(model: str) -> float:
    return next((factor for prefix, factor in TOKENIZER_FACTOR if model.startswith(prefix)), 1.0)


def request_tokens(request: ModelRequest) -> int:
    """The input tokens of a request, estimated from its JSON body and its model's tokenizer (no API call)."""
    return max(1, round(text_tokens(json.dumps(request.to_api_body())) * tokenizer_factor(request.model)))


def text_tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


def estimated_cost(request: ModelRequest, *, batch: bool = False) -> float | None:
    """The most the call should cost: its estimated input, and output up to its max_tokens; None
    when its model has no known price."""
    return cost_usd(request.model, request_tokens(request), request.max_tokens, batch=batch)


def parse_max_cost(value: object, where: str = "--max-cost") -> float:
    """A budget in US dollars from a flag, a suite file or an Action input, or UsageError (one line)."""
    problem = max_cost_problem(value)
    if isinstance(problem, str):
        raise UsageError(f"{where} {problem}")
    return problem


def max_cost_problem(value: object) -> float | str:
    """The amount in US dollars, or what is wrong with it (`'abc' is not an amount …`)."""
    if isinstance(value, bool):  # YAML's yes/no: not an amount
        return f"{value!r} is not an amount of US dollars (e.g. 5 or 0.50)"
    try:
        amount = float(str(value).strip().removeprefix("$"))
    except ValueError:
        return f"{str(value)!r} is not an amount of US dollars (e.g. 5 or 0.50)"
    if not math.isfinite(amount) or amount <= 0:
        return f"{str(value)!r} must be more than 0 US dollars"
    return amount


class BudgetExceeded(ProviderError):
    """A call the budget refused: it was not sent."""


@dataclass
class Budget:
    """Dollars spent and reserved by the calls in flight, against a limit (per run session)."""

    limit: float
    spent: float = 0.0
    in_flight: float = 0.0
    stopped: str | None = None  # why the budget stopped the run (the first refusal), else None
    refused: int = 0  # calls not sent

    def reserve(self, request: ModelRequest, *, batch: bool = False) -> float:
        """Hold the call's estimated cost, or raise BudgetExceeded (and stop the run)."""
        if self.stopped is None:
            estimate = estimated_cost(request, batch=batch)
            if estimate is None:
                self.stopped = f"no price is known for {request.model}: its calls cannot be kept within the budget"
            elif self.spent + self.in_flight + estimate > self.limit:
                self.stopped = (
                    f"the next call (about ${estimate:.4f}) would pass the budget of ${self.limit:.2f} "
                    f"(${self.spent:.4f} spent, ${self.in_flight:.4f} in flight)"
                )
            else:
                self.in_flight += estimate
                return estimate
        self.refused += 1
        raise BudgetExceeded(f"not run: budget: {self.stopped}")

    def settle(self, reserved: float, cost: float | None) -> None:
        """The call held `reserved` has ended, having cost `cost` (None: nothing known, e.g. it failed)."""
        self.in_flight = max(0.0, self.in_flight - reserved)
        self.spent += cost or 0.0
