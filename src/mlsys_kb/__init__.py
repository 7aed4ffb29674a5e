"""MLSys knowledge base: YAML catalogs of study material, validated and rendered for MkDocs."""

__version__ = "0.1.0"
