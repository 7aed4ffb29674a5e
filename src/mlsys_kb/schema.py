"""The catalogs' fields, declared once.

Validation, the JSON Schemas under ``schemas/`` and canonical field order all come
from these declarations. A paper, for example::

    - id: zheng2020distdgl
      title: "DistDGL: Distributed Graph Neural Network Training for Billion-Scale Graphs"
      authors: [Da Zheng, Chao Ma, Minjie Wang]
      year: 2020
      venue: ia3
      arxiv: "2010.05337"
      topics: [gnn]
      added: 2026-11-21
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Type(Enum):
    STR = "string"  # one line of plain text
    TEXT = "text"  # prose, may span lines
    INT = "integer"
    DATE = "date"  # ISO 8601 calendar date, YYYY-MM-DD
    URL = "url"  # http(s) URL or a relative path
    ID = "id"  # lowercase a-z0-9 and dashes
    STRS = "list of strings"
    IDS = "list of ids"
    COMPARISON = "comparison table"  # a topic's declaration of compared properties
    COMPARE = "compared values"  # a paper's values for those properties


@dataclass(frozen=True)
class Field:
    name: str
    type: Type
    description: str
    required: bool = False
    ref: str | None = None  # kind of catalog an id (or each id of a list) refers to
    choices: tuple[str, ...] = ()
    pattern: str | None = None  # regular expression the whole value must match
    unique: bool = False  # no two entries may share the (normalised) value
    example: str | None = None  # shown in messages: how to write it


@dataclass(frozen=True)
class Kind:
    name: str  # catalog name and file stem: papers -> data/papers.yaml
    singular: str
    fields: tuple[Field, ...]
    description: str
    one_of: tuple[str, ...] = ()  # at least one of these fields is required
    vocabulary: bool = False  # topics, venues, tags: ids in their own namespace

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


ID = Field("id", Type.ID, "Stable identifier, lowercase a-z, 0-9 and dashes.", required=True)
ADDED = Field("added", Type.DATE, "Date the entry was added (YYYY-MM-DD).", example="2026-11-21")
TOPICS = Field(
    "topics", Type.IDS, "Topic ids, the first is the entry's home.", required=True, ref="topics"
)
TAGS = Field("tags", Type.IDS, "Tag ids from data/tags.yaml.", ref="tags")

YEAR_MIN = 1950

# Comparison tables. A topic declares the properties its papers are compared by; the
# papers fill them in under `compare`, and the topic page shows one row per paper:
#
#     - id: gpu-programs                     # data/topics.yaml
#       compare:
#         topics: [gpu-analyse, gpu-test]    # whose papers are rows (default: this topic
#         properties:                        # and all its subtopics)
#           approach:
#             label: Approach
#             kind: set                      # one, set, bool or text
#             values: {static-verification: Static verification, dynamic-analysis: ...}
#           needs_source: {label: Needs source, kind: bool}
#
#     - id: betts2012gpuverify               # data/papers.yaml
#       compare: {approach: [static-verification], needs_source: true}
#
# The declaration lives on the topic whose page shows the whole table, and names the
# subtopics it covers: GPU analysis and testing is one comparison across two subtopics of
# `gpu-programs` (Analyse and Test), so it is declared once on their parent, shown there in
# full, and shown on each covered subtopic with that subtopic's rows only. The other
# subtopics of the parent (Profile, Schedule, ...) are not rows: their papers differ along
# other lines. A topic is covered by at most one table, so a paper's properties always have
# one meaning; a paper may fill in the properties of any table covering one of its topics.
# A property a paper leaves out is shown as unknown: only verified values are written.
COMPARE_KINDS = ("one", "set", "bool", "text")
COMPARE_KIND_HELP = {
    "one": "one value of its vocabulary",
    "set": "a list of values of its vocabulary",
    "bool": "true or false (shown as yes or no)",
    "text": "a short text",
}
COMPARE_TEXT_MAX = 80  # characters of a `text` cell: a table cell, not a paragraph
PROPERTY_PATTERN = r"[a-z][a-z0-9_]*"

TOPICS_KIND = Kind(
    "topics",
    "topic",
    (
        ID,
        # Topic titles go into the navigation and <title>, which the theme prints as HTML.
        Field(
            "title",
            Type.STR,
            "Title of the topic page, without < or >.",
            required=True,
            pattern=r"[^<>]+",
        ),
        Field("parent", Type.ID, "Id of the parent topic.", ref="topics"),
        Field("description", Type.TEXT, "What the topic covers.", required=True),
        Field(
            "compare",
            Type.COMPARISON,
            "Comparison table of the topic's papers: the properties they are compared by, "
            "and optionally the subtopics whose papers are rows.",
            example="{properties: {heterogeneous: {label: Heterogeneous devices, kind: bool}}}",
        ),
    ),
    "The taxonomy: one page per topic.",
    vocabulary=True,
)

VENUES_KIND = Kind(
    "venues",
    "venue",
    (
        ID,
        Field("name", Type.STR, "Short name, as people write it (OSDI).", required=True),
        Field("title", Type.STR, "Full name of the conference or journal.", required=True),
        Field(
            "kind",
            Type.STR,
            "conference, journal, workshop or preprint.",
            required=True,
            choices=("conference", "journal", "workshop", "preprint"),
        ),
    ),
    "Controlled vocabulary of venues.",
    vocabulary=True,
)

TAGS_KIND = Kind(
    "tags",
    "tag",
    (
        ID,
        Field("title", Type.STR, "Display name of the tag.", required=True),
        Field("description", Type.TEXT, "What the tag means."),
    ),
    "Controlled vocabulary of tags.",
    vocabulary=True,
)

PAPERS_KIND = Kind(
    "papers",
    "paper",
    (
        Field(
            "id",
            Type.ID,
            "Citation key: first author's family name, year, first title word.",
            required=True,
            example="zheng2020distdgl",
        ),
        Field("title", Type.STR, "Title as published.", required=True),
        Field(
            "authors",
            Type.STRS,
            "Full author list, in order.",
            required=True,
            example="[Da Zheng, Chao Ma]",
        ),
        Field("year", Type.INT, "Year of publication.", required=True, example="2020"),
        Field("venue", Type.ID, "Venue id from data/venues.yaml.", required=True, ref="venues"),
        Field(
            "doi",
            Type.STR,
            "Bare DOI, without https://doi.org/.",
            pattern=r"10\.\d{4,9}/\S+",
            unique=True,
            example="10.14778/3415478.3415530",
        ),
        Field(
            "arxiv",
            Type.STR,
            "Bare arXiv identifier, quoted.",
            pattern=r"(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})",
            unique=True,
            example='"2010.05337"',
        ),
        Field("url", Type.URL, "Landing page of the paper.", unique=True),
        Field("pdf", Type.URL, "Direct link to an open PDF."),
        Field("code", Type.URL, "Official code repository."),
        Field("slides", Type.URL, "Slides of the talk."),
        Field("video", Type.URL, "Recording of the talk."),
        TOPICS,
        TAGS,
        Field("summary", Type.TEXT, "One sentence on what the paper does."),
        Field(
            "compare",
            Type.COMPARE,
            "Verified values of the comparison properties its topics declare; leave out "
            "what is not verified.",
            example="{parallelism: [data, pipeline], heterogeneous: false}",
        ),
        ADDED,
    ),
    "Papers, with the metadata a citation needs.",
    one_of=("doi", "arxiv", "url"),
)

DECKS_KIND = Kind(
    "decks",
    "deck",
    (
        ID,
        Field("title", Type.STR, "Title of the seminar talk.", required=True),
        Field("date", Type.DATE, "Date of the seminar (YYYY-MM-DD)."),
        Field("presenters", Type.STRS, "Who presented it."),
        TOPICS,
        TAGS,
        Field("summary", Type.TEXT, "What the talk covers.", required=True),
        Field("papers", Type.IDS, "Ids of the papers the deck reviews.", ref="papers"),
        Field(
            "file",
            Type.STR,
            "The slide file, a path under slides/.",
            pattern=r"slides/[^\\]+",
            example="slides/2023-03-29-distdgl.pdf",
        ),
        Field("url", Type.URL, "Where the slides are published, if not in slides/.", unique=True),
        Field("video", Type.URL, "Recording of the talk."),
        ADDED,
    ),
    "Seminar slide decks.",
)

ISSUES_KIND = Kind(
    "issues",
    "issue",
    (
        ID,
        Field(
            "repo",
            Type.STR,
            "GitHub repository, OWNER/NAME.",
            required=True,
            pattern=r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+",
            example="pytorch/pytorch",
        ),
        Field("number", Type.INT, "Issue number.", required=True, example="90613"),
        Field("title", Type.STR, "Title of the issue on GitHub.", required=True),
        Field(
            "state",
            Type.STR,
            "open or closed, as on GitHub.",
            required=True,
            choices=("open", "closed"),
        ),
        Field("symptom", Type.TEXT, "What the user sees, error text included.", required=True),
        Field("cause", Type.TEXT, "Suspected cause."),
        Field("workaround", Type.TEXT, "How to get around it."),
        Field("versions", Type.STRS, "Affected versions."),
        TOPICS,
        TAGS,
        ADDED,
    ),
    "Notable GitHub issues.",
)

RESOURCES_KIND = Kind(
    "resources",
    "resource",
    (
        ID,
        Field("name", Type.STR, "Name of the tool, post or site.", required=True),
        Field(
            "kind",
            Type.STR,
            "What it is.",
            required=True,
            choices=(
                "framework",
                "library",
                "tool",
                "post",
                "course",
                "site",
                "tutorial",
                "docs",
                "dataset",
            ),
        ),
        Field("url", Type.URL, "Where it lives.", required=True, unique=True),
        Field("description", Type.TEXT, "One sentence on what it is.", required=True),
        Field("authors", Type.STRS, "Authors of a post."),
        Field("date", Type.DATE, "Publication date of a post."),
        Field("language", Type.STR, "Language code when not English.", pattern=r"[a-z]{2}"),
        Field("code", Type.URL, "Source repository, when url is not it."),
        TOPICS,
        TAGS,
        ADDED,
    ),
    "Tools, frameworks, libraries, posts, courses and sites.",
)

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        TOPICS_KIND,
        VENUES_KIND,
        TAGS_KIND,
        PAPERS_KIND,
        DECKS_KIND,
        ISSUES_KIND,
        RESOURCES_KIND,
    )
}
ENTRY_KINDS = tuple(name for name, kind in KINDS.items() if not kind.vocabulary)
