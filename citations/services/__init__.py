"""Services of the citations app: writing cited answers."""
