"""Settlement reports for casino finance: the figures and their rendering."""
