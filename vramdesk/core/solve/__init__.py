"""The reverse solver, its search, the fit advisor and the one verdict."""
