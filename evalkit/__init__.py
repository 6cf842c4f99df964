"""evalkit: evaluate LLM products with suites of cases, checks, a judge and gates."""
