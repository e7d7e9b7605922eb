"""Reports of a result for people and programs: text, CSV, JSON and self-contained HTML."""
