"""The word lists of every rule-based matcher, in one place, and the two ways of reducing a
text to its content words.

Three stopword lists serve three matchers and are kept apart because each was tuned with its
own matcher: `STOPWORDS` (function words) for the analysis stages' idf, key sentences and entity
spans (`content_words`); `CLAIM_STOPWORDS` for ConflictBench-style claim matching, where every
claim says "the answer to the question" (`content_stems`); `QUERY_STOPWORDS`, the few words
too common to OR into a full-text query. `ABBREVIATIONS` is one list for sentence boundaries
and for titles before names."""

from __future__ import annotations

import re

# Tokens that end with a period without ending a sentence, or a title before a name (compared
# lower-cased, without the period).
# fmt: off
ABBREVIATIONS = frozenset((
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "cf",
    "al", "approx", "fig", "no", "nos", "vol", "inc", "ltd", "co", "corp", "dept", "est", "gen",
    "gov", "lt", "col", "sgt", "capt", "rev", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "u.n", "a.m", "p.m", "ph.d", "b.c", "a.d",
    "sir", "ft"
))


def wordset(words: str) -> frozenset[str]:
    """A set of the space-separated words of a word list written as one string."""
    return frozenset(words.split())


# auxiliary and modal verbs (a yes/no question opens with one; "Who has won X?" skips one)
AUXILIARIES = wordset(
    "is are was were am do does did can could should would will shall may might must has "
    "have had isn't aren't wasn't weren't doesn't don't didn't can't won't"
)
COPULAS = wordset("is are was were am isn't aren't wasn't weren't")
PREPOSITIONS = wordset(
    "of in on at to for from by with about into onto over under between among per via "
    "during after before since until than as"
)

STOPWORDS = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for",
    "with", "from", "as", "into", "onto", "over", "under", "about", "is", "are", "was", "were",
    "be", "been", "being", "am", "do", "does", "did", "done", "has", "have", "had", "having",
    "will", "would", "shall", "should", "can", "could", "may", "might", "must", "this", "that",
    "these", "those", "it", "its", "it's", "they", "them", "their", "there", "here", "what",
    "which", "who", "whom", "whose", "when", "where", "why", "how", "than", "then", "so",
    "such", "not", "no", "nor", "very", "also", "just", "more", "most", "much", "many", "some",
    "any", "each", "every", "all", "both", "either", "neither", "one", "two", "i", "you", "he",
    "she", "we", "his", "her", "our", "your", "my", "me", "us", "him", "himself", "herself",
    "itself", "themselves", "yourself"
))

CLAIM_STOPWORDS = frozenset((
    "the", "and", "but", "for", "from", "with", "into", "onto", "over", "under", "after",
    "before", "between", "during", "about", "against", "this", "that", "these", "those", "its",
    "his", "her", "hers", "their", "theirs", "him", "them", "they", "she", "who", "whom",
    "whose", "which", "what", "when", "where", "why", "how", "than", "then", "there", "here",
    "not", "are", "was", "were", "been", "being", "has", "have", "had", "does", "did", "can",
    "could", "may", "might", "will", "would", "should", "must", "shall", "also", "some", "any",
    "all", "more", "most", "other", "such", "only", "own", "same", "very", "just", "out", "off",
    "our", "your", "you", "one", "answer", "question"
))

QUERY_STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "of", "on", "or", "so", "than", "that", "the", "their", "there", "these", "they",
    "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "why", "will",
    "with", "would", "you", "your"
))
# fmt: on

# Capitalised words that are not entities at a sentence start (besides STOPWORDS).
# fmt: off
_NON_ENTITY_EXTRA = frozenset((
    "according", "however", "although", "because", "while", "since", "after", "before",
    "during", "yes", "today", "yesterday", "in", "on", "at", "by", "for", "as", "the", "this",
    "that", "these", "those", "some", "many", "most", "several", "january", "february", "march",
    "april", "may", "june", "july", "august", "september", "october", "november", "december"
))
# fmt: on
NON_ENTITY_CAPITALS = STOPWORDS | _NON_ENTITY_EXTRA

# Adjectives of nationality, region, faith and language (English; the common ones): they
# qualify a person or a thing ("the American actor", "a Canadian-born singer") and name
# neither a person, an organisation nor a place. Words that are also common given names
# ("Christian", "Roman") are left out.
# fmt: off
NATIONALITIES = frozenset((
    "afghan", "albanian", "algerian", "american", "andorran", "angolan", "argentine",
    "argentinian", "armenian", "australian", "austrian", "azerbaijani", "bahamian", "bahraini",
    "bangladeshi", "barbadian", "belarusian", "belgian", "belizean", "beninese", "bhutanese",
    "bolivian", "bosnian", "brazilian", "british", "bruneian", "bulgarian", "burmese",
    "burundian", "cambodian", "cameroonian", "canadian", "chadian", "chilean", "chinese",
    "colombian", "congolese", "croatian", "cuban", "cypriot", "czech", "danish", "dutch",
    "ecuadorian", "egyptian", "english", "eritrean", "estonian", "ethiopian", "european",
    "fijian", "filipino", "finnish", "french", "gabonese", "gambian", "german", "ghanaian",
    "greek", "guatemalan", "guinean", "guyanese", "haitian", "honduran", "hungarian",
    "icelandic", "indian", "indonesian", "iranian", "iraqi", "irish", "israeli", "italian",
    "ivorian", "jamaican", "japanese", "jordanian", "kazakh", "kenyan", "korean", "kuwaiti",
    "kyrgyz", "laotian", "latvian", "lebanese", "liberian", "libyan", "lithuanian",
    "macedonian", "malagasy", "malawian", "malaysian", "maldivian", "malian", "maltese",
    "mauritian", "mexican", "moldovan", "mongolian", "montenegrin", "moroccan", "mozambican",
    "namibian", "nepalese", "nepali", "nicaraguan", "nigerian", "norwegian", "omani",
    "pakistani", "palestinian", "panamanian", "paraguayan", "persian", "peruvian", "polish",
    "portuguese", "qatari", "romanian", "russian", "rwandan", "salvadoran", "samoan", "saudi",
    "scottish", "senegalese", "serbian", "singaporean", "slovak", "slovenian", "somali",
    "spanish", "sudanese", "swedish", "swiss", "syrian", "taiwanese", "tajik", "tanzanian",
    "thai", "tibetan", "togolese", "tongan", "tunisian", "turkish", "turkmen", "ugandan",
    "ukrainian", "uruguayan", "uzbek", "venezuelan", "vietnamese", "welsh", "yemeni",
    "zambian", "zimbabwean", "african", "asian", "arab", "arabic", "nordic", "scandinavian",
    "caribbean", "hispanic", "latino", "jewish", "muslim", "hindu", "buddhist", "sikh",
    "catholic", "protestant", "soviet", "byzantine", "ottoman", "celtic", "anglo", "hindi",
    "sanskrit", "bengali", "tamil", "punjabi", "urdu", "yiddish", "hebrew", "gaelic",
    "basque", "catalan", "latin",
))
# fmt: on

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_CONTENT_TOKEN = re.compile(r"[^\W_]+(?:[,.][0-9]+)*")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, inner apostrophes and hyphens)."""
    return [w.lower() for w in WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """The tokens of `words` that are not STOPWORDS, longer than one character, in order."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]


def content_stems(text: str) -> frozenset[str]:
    """Lower-cased words of 3+ characters that are not CLAIM_STOPWORDS, cut to their first 5
    characters (a crude stem: "played"/"player" → "playe"), and numbers without thousands
    separators ("3,559" → "3559")."""
    stems = set()
    for token in _CONTENT_TOKEN.findall(text.lower()):
        if token[0].isdigit():
            stems.add(token.replace(",", ""))
        elif len(token) >= 3 and token not in CLAIM_STOPWORDS:
            stems.add(token[:5])
    return frozenset(stems)
