"""ConflictScore's prompts as the paper gives them (Appendix B), filled by `str.replace`
so that braces inside the templates (Table 7's JSON) need no escaping."""

from __future__ import annotations

import re
from typing import Any

# Table 6: claim decomposition.
DECOMPOSE_TABLE6 = """Instruction: Break down the following report into individual claims.
Report: {report}
Please identify each separate claim made in the report. A claim is a factual statement or opinion that expresses a belief or judgment.
List each claim on a new line, starting with "Claims: "."""

# Generation is constrained to this schema, so the answer is JSON rather than the lines that
# Table 6 asks for; this one sentence (ours, not the paper's) tells the model where lines go.
DECOMPOSE_JSON_NOTE = 'Write the list as JSON: {"claims": ["<one claim>", ...]}.'


def claims_schema(max_items: int | None = None) -> dict[str, Any]:
    """JSON schema of {"claims": [string, ...]}, at most `max_items` claims when given."""
    claims: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}
    if max_items is not None:
        claims["maxItems"] = max_items
    return {"type": "object", "properties": {"claims": claims}, "required": ["claims"]}


DECOMPOSE_SCHEMA = claims_schema()

# Table 7: evidence evaluation (document-claim conflict detection).
LABEL_TABLE7 = """Document-Claim Conflict Detection
You are a careful fact-checking assistant specializing in identifying conflicts between claims and evidence in documents.
Decide one of the following labels for how the document relates to the claim:
1. **SUPPORTS** – The document provides evidence that directly supports any part of the claim. This includes partial support: if a claim contains hedged or multi-part statements (e.g., "Coffee consumption can improve alertness but may also cause sleep disruption"), then documents that support any part of that claim should be labeled **SUPPORTS**.
2. **CONTRADICTS** – The document provides evidence that contradicts the claim (e.g., assigns an incompatible role/date/quantity/polarity, or states the opposite of an asserted relationship), even if it does not explicitly say the claim is false.
3. **IRRELEVANT** – The document does not provide information about the substantive content of the claim (mentions entities without giving information that could support or contradict) OR provides only vague/contextual information insufficient to judge the claim.
Decision rules:
- Look for statements in the document that address the same attributes asserted (who/what/when/where/how many/etc.) inside the claim.
- If the document contains a statement that supports the claim or partially supports any part of a hedged claim, choose **SUPPORTS**.
- If the document contains a statement incompatible with the claim, choose **CONTRADICTS** (do NOT choose **IRRELEVANT**).
- If it contains neither a compatible nor incompatible statement about the claim’s asserted attributes, choose **IRRELEVANT**.
Example (contradiction via incompatible attribute):
- Claim: "Frédéric Chopin was a famous musician."
- Document: "Polish scientists born in Warsaw include ... Frédéric Chopin."
- Label: **CONTRADICTS** (profession mismatch: scientist vs musician).
Now evaluate the following:
Claim to evaluate
{claim}
Document to evaluate against
{document}
Output format
Return ONLY a single JSON object with these fields:
```
{
  "claim": "{claim}",
  "document_snippet": "<the most relevant snippet from the document that relates to the claim>",
  "reasoning": "<a brief justification that explains your decision>",
  "answer": "<SUPPORTS|CONTRADICTS|IRRELEVANT>"
}
```
Please be precise and follow the decision rules. Do not include any additional text or explanations and only output in the JSON format specified above."""

# Table 13: conflict-aware response re-generation (free-form setting).
REGENERATE_TABLE13 = """You are being asked to reconsider and improve your previous response to a question. Your original response contained conflicting information based on the provided documents.
ORIGINAL QUESTION: {question}
DOCUMENTS:
{context_text}
YOUR ORIGINAL RESPONSE:
{original_response}
YOUR MAIN CLAIM THAT HAD CONFLICTS:
{selected_claim}
{conflict_details}
INSTRUCTIONS:
1. Carefully re-examine all the provided documents.
2. Pay special attention to the conflicting evidence identified above.
3. Think critically about which sources are most reliable and authoritative.
4. Consider the quality, recency, and credibility of different sources.
5. Prioritize accuracy and truthfulness over simply agreeing with the majority of sources.
Please provide your improved, more truthful response:"""


def fill(template: str, **values: str) -> str:
    """Replace each `{name}` in `template` in one pass (so a value containing "{x}" is never
    filled again); every name must be a placeholder of the template."""
    for name in values:
        if "{" + name + "}" not in template:
            raise KeyError(f"template has no {{{name}}}")
    pattern = re.compile("\\{(" + "|".join(re.escape(name) for name in values) + ")\\}")
    return pattern.sub(lambda match: values[match.group(1)], template)
