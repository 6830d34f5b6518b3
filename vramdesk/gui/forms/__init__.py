"""The left column's forms: binders from field names to widgets, and the number field."""
