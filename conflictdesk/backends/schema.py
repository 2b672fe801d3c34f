"""A small JSON-schema validator for the subset the prompts use.

Supported keywords: type (object, array, string, number, integer, boolean, null, or a list of
these), properties, required, additionalProperties (false only), enum, items, minItems,
maxItems, minimum, maximum, minLength, maxLength. Any other keyword is refused up front, so a
schema never passes by being silently half-checked."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from conflictdesk.errors import ModelOutputError

log = logging.getLogger(__name__)

RETRY_NOTE = (
    "That answer was not valid ({problem}). Reply again with only JSON matching the schema."
)

SUPPORTED = {
    "type", "properties", "required", "additionalProperties", "enum", "items", "minItems",
    "maxItems", "minimum", "maximum", "minLength", "maxLength", "description", "title",
}  # fmt: skip
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


class SchemaError(ValueError):
    """The schema itself uses something this validator does not check."""


def check_schema(schema: dict[str, Any], path: str = "$") -> None:
    """Raise SchemaError if `schema` uses unsupported keywords anywhere."""
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise SchemaError(f"{path}: unsupported schema keyword(s) {sorted(unknown)}")
    if schema.get("additionalProperties", False) is not False:
        raise SchemaError(f"{path}: only additionalProperties: false is supported")
    for name, sub in schema.get("properties", {}).items():
        check_schema(sub, f"{path}.{name}")
    if "items" in schema:
        check_schema(schema["items"], f"{path}[]")


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Every violation of `schema` by `value`, as readable strings; empty when valid."""
    errors = _check_type(value, schema, path)
    if errors:
        return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, dict):
        errors += _check_object(value, schema, path)
    if isinstance(value, list):
        errors += _check_array(value, schema, path)
    if isinstance(value, str):
        errors += _check_bounds(len(value), schema, "minLength", "maxLength", f"{path} length")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        errors += _check_bounds(value, schema, "minimum", "maximum", path)
    return errors


def _check_type(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    if "type" not in schema:
        return []
    names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    for name in names:
        # bool is an int in Python; JSON keeps them apart.
        if isinstance(value, _TYPES[name]) and not (isinstance(value, bool) and name != "boolean"):
            return []
    return [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]


def _check_object(value: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    properties = schema.get("properties", {})
    errors = [f"{path}: missing {key!r}" for key in schema.get("required", []) if key not in value]
    if schema.get("additionalProperties") is False:
        errors += [f"{path}: unexpected {key!r}" for key in value if key not in properties]
    for key, sub in properties.items():
        if key in value:
            errors += validate(value[key], sub, f"{path}.{key}")
    return errors


def _check_array(value: list[Any], schema: dict[str, Any], path: str) -> list[str]:
    errors = _check_bounds(len(value), schema, "minItems", "maxItems", f"{path} size")
    if "items" in schema:
        for index, item in enumerate(value):
            errors += validate(item, schema["items"], f"{path}[{index}]")
    return errors


def _check_bounds(
    number: float, schema: dict[str, Any], low: str, high: str, what: str
) -> list[str]:
    errors = []
    if low in schema and number < schema[low]:
        errors.append(f"{what}: {number} < {low} {schema[low]}")
    if high in schema and number > schema[high]:
        errors.append(f"{what}: {number} > {high} {schema[high]}")
    return errors


def parse_and_validate(text: str, schema: dict[str, Any]) -> tuple[Any, str]:
    """(value, "") when `text` is JSON valid under `schema`, else (None, the problem)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at {exc.pos}"
    errors = validate(value, schema)
    return (None, "; ".join(errors[:3])) if errors else (value, "")


def json_with_one_retry(
    complete: Callable[[list[dict[str, str]]], str],
    messages: Sequence[dict[str, str]],
    schema: dict[str, Any],
    name: str,
) -> Any:
    """`complete(conversation)`'s JSON, validated under `schema`; on failure the problem is
    shown to the model once, and a second failure is a ModelOutputError naming `name`.
    Every LLM back-end (in-process GGUF, OpenAI-compatible server) validates this one way."""
    check_schema(schema)
    conversation = list(messages)
    problem = ""
    for attempt in (1, 2):
        text = complete(conversation)
        value, problem = parse_and_validate(text, schema)
        if not problem:
            return value
        log.info("%s: invalid JSON on attempt %d: %s", name, attempt, problem)
        conversation += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": RETRY_NOTE.format(problem=problem)},
        ]
    raise ModelOutputError(f"{name}: no valid JSON after a retry: {problem}")
