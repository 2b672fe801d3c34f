import pytest

from conflictdesk.backends.schema import SchemaError, check_schema, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["SUPPORTS", "CONTRADICTS"]},
        "claims": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 2},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "count": {"type": "integer"},
    },
    "required": ["label", "claims"],
    "additionalProperties": False,
}


def test_valid_value_has_no_errors():
    assert (
        validate({"label": "SUPPORTS", "claims": ["a"], "confidence": 0.5, "count": 2}, SCHEMA)
        == []
    )


@pytest.mark.parametrize(
    "value, fragment",
    [
        ({"claims": []}, "missing 'label'"),
        ({"label": "MAYBE", "claims": []}, "not one of"),
        ({"label": "SUPPORTS", "claims": ["a", "b", "c"]}, "> maxItems"),
        ({"label": "SUPPORTS", "claims": [""]}, "< minLength"),
        ({"label": "SUPPORTS", "claims": [], "confidence": 1.5}, "> maximum"),
        ({"label": "SUPPORTS", "claims": [], "count": True}, "expected integer"),
        ({"label": "SUPPORTS", "claims": [], "extra": 1}, "unexpected 'extra'"),
        (["SUPPORTS"], "expected object"),
    ],
)
def test_violations_are_reported(value, fragment):
    errors = validate(value, SCHEMA)
    assert any(fragment in error for error in errors), errors


def test_unsupported_keywords_are_refused():
    check_schema(SCHEMA)
    with pytest.raises(SchemaError, match="pattern"):
        check_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}})
    with pytest.raises(SchemaError, match="additionalProperties"):
        check_schema({"type": "object", "additionalProperties": True})
